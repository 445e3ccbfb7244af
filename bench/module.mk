# bench — fragment (to be written)
