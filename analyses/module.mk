# analyses — fragment (to be written)
