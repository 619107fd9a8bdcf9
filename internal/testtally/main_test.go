package main

import (
	"bytes"
	"strings"
	"testing"
)

// Two runs of one package: the first passes, in the second TestB's
// binary panics while TestB/sub runs, so neither reports an outcome of
// its own and both count as failed.
const twoRuns = `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":1}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"run","Package":"p","Test":"TestB/sub"}
{"Action":"pass","Package":"p","Test":"TestB/sub","Elapsed":0.5}
{"Action":"pass","Package":"p","Test":"TestB","Elapsed":2}
{"Action":"pass","Package":"p","Elapsed":3}
build output that is not JSON
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":3}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"run","Package":"p","Test":"TestB/sub"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"panic: boom\n"}
{"Action":"fail","Package":"p","Elapsed":4}
`

func TestTally(t *testing.T) {
	tl := map[[2]string]*tally{}
	if err := read(strings.NewReader(twoRuns), tl); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		test        string
		runs, fails int
	}{{"TestA", 2, 0}, {"TestB", 2, 1}, {"TestB/sub", 2, 1}, {"", 2, 1}} {
		got := tl[[2]string{"p", c.test}]
		if got == nil || got.runs != c.runs || got.fails != c.fails {
			t.Errorf("%q: %+v, want %d runs %d fails", c.test, got, c.runs, c.fails)
		}
	}
	var out bytes.Buffer
	if !report(&out, tl, 1) {
		t.Error("report says nothing failed")
	}
	for _, want := range []string{"p TestB/sub", "50%", "SLOWEST TEST", "p TestA"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
