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

// ReadResults reads shard results from r, one JSON object per line as
// shard runs write them, or spread over several lines as a JSON
// pretty-printer writes them (blank lines are skipped), naming each
// "name:line" by its first line (just name when there is only one). A
// record longer than MaxLine, one that is not a JSON object, has a field
// a shard result does not have or has trailing data, and a file that ends
// inside a record, are errors that name the line and quote none of it
// beyond a few bytes. The records are not checked: see Result.Check and
// Merge.
func ReadResults(r io.Reader, name string) ([]Source, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []Source
	var rec []byte // the record read so far
	first := 0     // its first line
	for line := 1; ; line++ {
		text, err := readLine(br)
		if errors.Is(err, errLongLine) {
			return nil, fmt.Errorf("%s:%d is longer than %s: not a shard result", name, line, fsutil.FormatBytes(MaxLine))
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if t := bytes.TrimSpace(text); len(t) > 0 || len(rec) > 0 {
			if len(rec) == 0 {
				first = line
			} else {
				rec = append(rec, '\n')
			}
			rec = append(rec, t...)
			if len(rec) > MaxLine {
				return nil, fmt.Errorf("%s:%d starts a record longer than %s: not a shard result", name, first, fsutil.FormatBytes(MaxLine))
			}
			res, derr := decodeResult(rec)
			switch {
			case errors.Is(derr, io.ErrUnexpectedEOF) && err != io.EOF:
				continue // the record goes on on the next line
			case errors.Is(derr, io.ErrUnexpectedEOF):
				return nil, fmt.Errorf("%s:%d is not a whole shard result: the file ends inside it", name, first)
			case derr != nil:
				return nil, fmt.Errorf("%s:%d is not a shard result (%s)", name, first, clip.String(derr.Error(), 120))
			}
			out = append(out, Source{Name: fmt.Sprintf("%s:%d", name, first), Result: res})
			rec = rec[:0]
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

// decodeResult decodes one record: a JSON object with the fields of a
// Result and nothing after it. A record cut short is io.ErrUnexpectedEOF.
func decodeResult(rec []byte) (Result, error) {
	var res Result
	dec := json.NewDecoder(bytes.NewReader(rec))
	dec.DisallowUnknownFields()
	err := dec.Decode(&res)
	if err == nil && dec.More() {
		err = errors.New("more after the JSON object")
	}
	return res, err
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
