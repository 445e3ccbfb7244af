# tests/xcheck — fragment (to be written)
