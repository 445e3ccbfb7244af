# libprof — fragment (to be written)
