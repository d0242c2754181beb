package shard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// MaxLine bounds a line of a shard results file. A record is about
// 600 bytes; device names of many GPUs make it longer, never this long.
const MaxLine = 16 << 10

// MaxFileBytes bounds a shard results file: room for a record of
// each of plan.MaxShards shards in one file.
const MaxFileBytes = 1 << 30

// ReadFile reads the shard results in the file at path, which must
// be a regular file of at most MaxFileBytes (never a FIFO or a
// device, which could hang or never end). See ReadResults.
func ReadFile(path string) ([]Source, error) {
	f, err := fsutil.OpenRegular(path, MaxFileBytes)
	var tl *fsutil.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, fmt.Errorf("%s is larger than %s, more than the results of %d shards: not a file of shard results",
			path, fsutil.FormatBytes(tl.Max), plan.MaxShards)
	case err != nil:
		return nil, err
	}
	defer f.Close()
	return ReadResults(fsutil.LimitReader(f, path, MaxFileBytes), path)
}

// ReadResults reads shard results from r, one JSON object per line
// as shard runs write them (blank lines are skipped), naming each
// "name:line" (just name when there is only one). A line that is longer
// than MaxLine, is not one JSON object, has a field a shard result
// does not have or has trailing data is an error that names the line and
// quotes none of it beyond a few bytes. The records are not checked: see
// Result.Check and Merge.
func ReadResults(r io.Reader, name string) ([]Source, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Source
	for line := 1; ; line++ {
		text, err := readLine(br)
		if errors.Is(err, errLongLine) {
			return nil, fmt.Errorf("%s:%d is longer than %s: not a shard result", name, line, fsutil.FormatBytes(MaxLine))
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if t := bytes.TrimSpace(text); len(t) > 0 {
			var res Result
			dec := json.NewDecoder(bytes.NewReader(t))
			dec.DisallowUnknownFields()
			derr := dec.Decode(&res)
			if derr == nil && dec.More() {
				derr = errors.New("more after the JSON object")
			}
			if derr != nil {
				return nil, fmt.Errorf("%s:%d is not a shard result (%s)", name, line, clip.String(derr.Error(), 120))
			}
			out = append(out, Source{Name: fmt.Sprintf("%s:%d", name, line), Result: res})
		}
		if err == io.EOF {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no shard result", name)
	}
	if len(out) == 1 {
		out[0].Name = name
	}
	return out, nil
}

var errLongLine = errors.New("line too long")

// readLine reads one line without its newline, or errLongLine for one
// longer than MaxLine (without reading the rest of it).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxLine+1 {
			return nil, errLongLine
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}
