// Package progress reports how far a count has got, on stderr: a progress
// bar when stderr is a terminal, otherwise one status line per interval,
// fit for batch logs. Both say the same words:
//
//	N=24 symmetry: 12.5% (3259619 of 26076951 batches, 104307808 of 834462428 tasks), 2110 tasks/s, elapsed 13:43:50, left 4 days
//
// the status line with the program's name in front; the bar
// (github.com/schollz/progressbar) draws its percentage and bar graph and
// then these words without theirs, so that the line shows one
// percentage, leaving out details until the line fits the terminal: the
// tasks, the rate, the elapsed time, the batches or the label, and the
// time left last. Before the task list is known the words say how many
// batches are done and how long it has run (the bar is then a spinner);
// the rate appears once a batch of this run has finished, the time left
// once the rate has been measured for a while (MinEstimate). With the task
// list known and an expected time of the count (Options.Expected), the
// time left is said from the start, until the run has finished
// MinBatches batches, as that estimate's share of the tasks left:
//
//	N=26 eightfold: 0.0% (0 of 94846244 batches, 0 of 1517539883 tasks), no batch finished yet, elapsed 00:00:01, left about 11 years (estimate)
//
// Times to come are written by estimate.Text, as the fallback line's
// expected time is. It reads a job.Status snapshot on a timer of its own,
// so the counting itself only updates the job's counters, which it does
// anyway.
package progress
