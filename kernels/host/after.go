package host

// EightfoldAfter is NQ_EF_AFTER of kernels/nqtotal.h: the steps
// nq_eightfold's step loop takes between two looks at whether a thread's
// task has ended, less one; a task's state takes any number of steps after
// its end without harm. The cgo build checks it against the C constant.
const EightfoldAfter = 9
