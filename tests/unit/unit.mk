# tests/unit — fragment (to be written)
