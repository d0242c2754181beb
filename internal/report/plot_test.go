package report

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nonBackground counts the pixels of a PNG that are not the colour of its
// top-left corner (the background).
func nonBackground(t *testing.T, data []byte) (count, total int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	br, bgc, bb, ba := bg.RGBA()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if r != br || g != bgc || bl != bb || a != ba {
				count++
			}
		}
	}
	return count, b.Dx() * b.Dy()
}

// svgElements counts the elements of an SVG document by name.
func svgElements(t *testing.T, data []byte) map[string]int {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	n := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
		}
	}
	return n
}

func TestWritePlot(t *testing.T) {
	series := PlotSeriesOf([]*Document{fixture(), fixture()}, []string{"a.json", "b.json"})
	if len(series) != 4 || series[0].Label != "a.json: cpu symmetry" || series[3].Label != "b.json: gpu0 symmetry" {
		t.Fatalf("series %+v", series)
	}
	var buf bytes.Buffer
	if err := WritePlot(&buf, "png", "test", series); err != nil {
		t.Fatal(err)
	}
	ink, total := nonBackground(t, buf.Bytes())
	// Axes, ticks, labels, legend and four lines: far more than a few
	// pixels, far fewer than all.
	if ink < total/200 || ink > total/2 {
		t.Errorf("%d of %d pixels drawn: the plot looks blank or flooded", ink, total)
	}

	// The same plot with a single series draws less.
	var one bytes.Buffer
	if err := WritePlot(&one, "png", "test", series[:1]); err != nil {
		t.Fatal(err)
	}
	if ink1, _ := nonBackground(t, one.Bytes()); ink1 >= ink {
		t.Errorf("one series draws %d pixels, four draw %d", ink1, ink)
	}

	buf.Reset()
	if err := WritePlot(&buf, "svg", "test", series); err != nil {
		t.Fatal(err)
	}
	els := svgElements(t, buf.Bytes())
	if els["svg"] != 1 || els["path"] < 20 || els["text"] < 10 {
		t.Errorf("SVG elements %v: want one svg with many paths and texts", els)
	}
	if !strings.Contains(buf.String(), "gpu0 symmetry") {
		t.Errorf("the SVG has no legend entry for gpu0 symmetry")
	}
}

func TestWritePlotErrors(t *testing.T) {
	if err := WritePlot(io.Discard, "png", "", nil); err == nil {
		t.Error("no series: no error")
	}
	zero := []PlotSeries{{Label: "x", Points: []PlotPoint{{N: 8, Median: 0, Min: 0, Max: 0}}}}
	if err := WritePlot(io.Discard, "svg", "", zero); err == nil {
		t.Error("only zero times: no error")
	}
	if err := WritePlot(io.Discard, "gif", "", PlotSeriesOf([]*Document{fixture()}, []string{"x"})); err == nil {
		t.Error("gif: no error")
	}
}

func TestSavePlot(t *testing.T) {
	dir := t.TempDir()
	series := PlotSeriesOf([]*Document{fixture()}, []string{"x"})
	for _, name := range []string{"t.png", "T.SVG"} {
		p := filepath.Join(dir, name)
		if err := SavePlot(p, "title", series); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, "png") {
			if ink, _ := nonBackground(t, data); ink == 0 {
				t.Errorf("%s is blank", name)
			}
		} else if svgElements(t, data)["path"] == 0 {
			t.Errorf("%s has no path", name)
		}
	}
	if err := SavePlot(filepath.Join(dir, "t.jpg"), "", series); err == nil || !strings.Contains(err.Error(), ".png or .svg") {
		t.Errorf("t.jpg: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.jpg")); err == nil {
		t.Errorf("t.jpg was created")
	}
}
