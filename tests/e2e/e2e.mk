# tests/e2e — fragment (to be written)
