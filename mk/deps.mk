# mk — fragment (to be written)
