# tests/bad — fragment (to be written)
