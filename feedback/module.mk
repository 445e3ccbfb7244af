# feedback — fragment (to be written)
