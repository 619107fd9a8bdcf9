package admin

import (
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMarshalPrettyMatchesJackson encodes ZooKeeper's captured responses
// again and expects the same bytes: objects, nested objects, arrays of
// scalars and of objects, empty ones, doubles, nulls.
func TestMarshalPrettyMatchesJackson(t *testing.T) {
	for _, name := range []string{"standalone-connections", "standalone-server_stats", "standalone-dump",
		"standalone-watches_by_path", "leader-zabstate", "leader-voting_view", "leader-observers",
		"standalone-leader", "follower-server_stats", "standalone-hash"} {
		want, err := os.ReadFile("testdata/zk38/" + name + ".json")
		require.NoError(t, err)
		o, err := decodeOrdered(want)
		require.NoError(t, err)
		require.Equal(t, string(want), string(MarshalPretty(numbersToGo(o))), name)
	}
}

// numbersToGo turns decoded json.Numbers into int64 or float64, as the
// commands produce them.
func numbersToGo(v any) any {
	switch x := v.(type) {
	case Object:
		out := make(Object, len(x))
		for i, f := range x {
			out[i] = Field{f.Key, numbersToGo(f.Value)}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = numbersToGo(e)
		}
		return out
	case interface{ Int64() (int64, error) }:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := v.(interface{ Float64() (float64, error) }).Float64()
		return f
	}
	return v
}

func TestJavaDouble(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0.0", 30: "30.0", 114.5455: "114.5455", 0.001: "0.001", 1e7: "1.0E7", 1.5e-5: "1.5E-5",
		-2.25: "-2.25", 123456789.5: "1.234567895E8", 9999999: "9999999.0",
	} {
		require.Equal(t, want, JavaDouble(f), "%v", f)
	}
	require.Equal(t, `[ "NaN", "\"q\"\n\u0001é", null, true ]`, string(MarshalPretty([]any{math.NaN(), "\"q\"\n\x01é", nil, true})))
	require.Equal(t, "{ }", string(MarshalPretty(Object{})))
	o := Object{{"a", 1}}
	o.Put("b", 2)
	o.Put("a", 3)
	require.Equal(t, Object{{"a", 3}, {"b", 2}}, o, "Put keeps a key's place")
}
