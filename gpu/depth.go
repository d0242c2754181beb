package gpu

// The parts of MinTasks. A GPU runs one partial board per thread; the
// task list of a count should hold BoardsPerThread boards for every thread
// the GPUs keep resident, so that the very uneven cost of the boards evens
// out over the run and no launch ends with most of its threads idle.
const (
	// ResidentThreadsPerSM is the number of threads one streaming
	// multiprocessor keeps resident: 2048 on Volta, Ampere A100 and
	// Hopper (an H100 or H200, 132 SMs, keeps 270,336). Turing (1024)
	// and the consumer Ampere and Ada parts (1536) keep fewer; for them
	// MinTasks errs towards more, smaller tasks.
	ResidentThreadsPerSM = 2048
	// BoardsPerThread is the number of boards the task list should hold
	// per resident thread.
	BoardsPerThread = 8
)

// MinTasks is the number of tasks a count should supply to keep the GPUs
// devs busy: BoardsPerThread × ResidentThreadsPerSM × their SMs summed
// (2,162,688 for one H100), or 0 for no GPU. tasks.DepthFor turns it into
// the depth of the partial boards.
func MinTasks(devs []DeviceInfo) int {
	sms := 0
	for _, d := range devs {
		if d.SMs > 0 {
			sms += d.SMs
		}
	}
	return BoardsPerThread * ResidentThreadsPerSM * sms
}
