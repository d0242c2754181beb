module github.com/nqueens-gpu/nqueens-gpu

go 1.23
