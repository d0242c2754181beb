module github.com/nqueens-gpu/nqueens-gpu

go 1.24.0

require (
	github.com/mumax/3 v0.0.0-20261020084628-54efa12420b2
	gonum.org/v1/gonum v0.17.0
)
