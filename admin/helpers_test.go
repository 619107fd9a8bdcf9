package admin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// startAdmin serves v's AdminServer on 127.0.0.1:0 until the test ends and
// returns its base URL.
func startAdmin(t testing.TB, v View, opts Options) string {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	s, err := Start(v, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return "http://" + s.Addr()
}

// httpClient has a timeout so that a stuck server fails the test.
var httpClient = &http.Client{Timeout: 10 * time.Second}

// fetch does one request and returns the status, headers and body.
func fetch(t testing.TB, method, url string, body io.Reader, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// getJSON GETs url, checks 200 and application/json, and decodes the
// body keeping key order.
func getJSON(t testing.TB, url string) Object {
	t.Helper()
	status, hdr, body := fetch(t, http.MethodGet, url, nil)
	if status != http.StatusOK || hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s\n%s", url, status, hdr.Get("Content-Type"), body)
	}
	o, err := decodeOrdered(body)
	if err != nil {
		t.Fatalf("GET %s: %v\n%s", url, err, body)
	}
	return o
}

// decodeOrdered decodes a JSON object into an Object, nested objects too,
// numbers as json.Number.
func decodeOrdered(b []byte) (Object, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	o, ok := v.(Object)
	if !ok {
		return nil, fmt.Errorf("not an object: %v", v)
	}
	return o, nil
}

func decodeValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := Object{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			o = append(o, Field{k.(string), v})
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for d.More() {
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token()
		return a, err
	}
	return tok, nil
}

// shape describes a decoded value by its keys and types: "number",
// "string", "bool", "null", an object's keys each with its shape, an
// array's first element's shape.
func shape(v any) string {
	var b strings.Builder
	writeShape(&b, v, "")
	return b.String()
}

func writeShape(b *strings.Builder, v any, indent string) {
	switch x := v.(type) {
	case Object:
		b.WriteString("{\n")
		for _, f := range x {
			fmt.Fprintf(b, "%s  %s: ", indent, f.Key)
			if inner, ok := f.Value.(Object); ok && keyedByData[f.Key] {
				f.Value = collapse(inner)
			}
			writeShape(b, f.Value, indent+"  ")
		}
		b.WriteString(indent + "}\n")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]\n")
			return
		}
		b.WriteString("[")
		writeShape(b, x[0], indent)
	case json.Number:
		b.WriteString("number\n")
	case string:
		b.WriteString("string\n")
	case bool:
		b.WriteString("bool\n")
	case nil:
		b.WriteString("null\n")
	default:
		fmt.Fprintf(b, "%T\n", x)
	}
}

// keyedByData are the maps whose keys are data (ids, times, paths), not
// names: their shapes are that of their values.
var keyedByData = map[string]bool{
	"expiry_time_to_session_ids": true, "session_id_to_ephemeral_paths": true,
	"session_id_to_watched_paths": true, "path_to_session_ids": true, "current_config": true,
}

// collapse turns a map keyed by data into {"*": its last non-empty value}.
func collapse(o Object) Object {
	var last any
	for _, f := range o {
		if a, ok := f.Value.([]any); !ok || len(a) > 0 || last == nil {
			last = f.Value
		}
	}
	if last == nil {
		return Object{}
	}
	return Object{{"*", last}}
}

// keys returns o's keys in order.
func keys(o Object) []string {
	out := make([]string, len(o))
	for i, f := range o {
		out[i] = f.Key
	}
	return out
}

// capture reads a real ZooKeeper 3.8 response from testdata/zk38.
func capture(t testing.TB, name string) Object {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "zk38", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := decodeOrdered(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return o
}

// sortedKeys returns o's keys sorted, for comparisons where order varies.
func sortedKeys(o Object) []string {
	k := keys(o)
	sort.Strings(k)
	return k
}
