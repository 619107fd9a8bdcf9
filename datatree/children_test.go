package datatree

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

// TestChildTableModel drives a child table with random adds and removes
// (few distinct names, so probe runs collide, wrap and shift back) and
// checks it against a map after every step: once with tables of this size
// growing at 7/8, and once with their growth limits drawn.
func TestChildTableModel(t *testing.T) {
	for _, from := range []int{jitterFrom, 8} {
		t.Run(fmt.Sprintf("jitterFrom=%d", from), func(t *testing.T) {
			was := jitterFrom
			jitterFrom = from
			t.Cleanup(func() { jitterFrom = was })
			childTableModel(t)
		})
	}
}

func childTableModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parent := newNode("", []byte{}, 0, 0, 0)
	model := map[string]bool{}
	check := func() {
		require.Equal(t, len(model), parent.numChildren())
		for i := 0; i < 300; i++ {
			name := "c" + strconv.Itoa(i)
			c := parent.child(name)
			require.Equal(t, model[name], c != nil, name)
			if c != nil {
				require.Equal(t, name, string(c.name()))
			}
		}
		got := []string{}
		for c := range parent.children() {
			got = append(got, string(c.name()))
		}
		want := make([]string, 0, len(model))
		for k := range model {
			want = append(want, k)
		}
		slices.Sort(got)
		slices.Sort(want)
		require.Equal(t, want, got)
		if k := parent.ext; k != nil && k.kids != nil {
			require.LessOrEqual(t, int(k.kids.n)*8, len(k.kids.slots)*7, "load")
		}
	}
	for step := 0; step < 20000; step++ {
		name := "c" + strconv.Itoa(rng.IntN(300))
		if rng.IntN(100) < 55 && !model[name] {
			parent.addChild(newNode(name, []byte("d"), 0, 1, 1))
			model[name] = true
		} else {
			parent.removeChild(name)
			delete(model, name)
		}
		if step%97 == 0 {
			check()
		}
	}
	check()
	for name := range model {
		parent.removeChild(name)
	}
	require.Nil(t, parent.ext, "an empty child table and a default ext are dropped")
}

// TestNodeSize pins the node to the 80-byte size class claimed in node.go
// (unsafe.Sizeof only reads a compile-time constant).
func TestNodeSize(t *testing.T) {
	require.Equal(t, uintptr(80), unsafe.Sizeof(node{}))
	require.Equal(t, uintptr(32), unsafe.Sizeof(ext{}))
}

// TestChildTableShrinks checks that a table follows its size down.
func TestChildTableShrinks(t *testing.T) {
	p := newNode("", []byte{}, 0, 0, 0)
	for i := 0; i < 10000; i++ {
		p.addChild(newNode("n"+strconv.Itoa(i), nil, 0, 0, 0))
	}
	for i := 10; i < 10000; i++ {
		p.removeChild("n" + strconv.Itoa(i))
	}
	require.Equal(t, 10, p.numChildren())
	require.LessOrEqual(t, len(p.ext.kids.slots), 128)
	for i := 0; i < 10; i++ {
		require.NotNil(t, p.child("n"+strconv.Itoa(i)))
	}
}

// TestDataIsCopied checks that the tree keeps neither the caller's data
// slice nor, after setData, the old buffer, and that null and empty data
// stay distinct.
func TestDataIsCopied(t *testing.T) {
	e := newEnv(t, Config{})
	data := []byte("hello")
	r := e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/a", Data: data, ACL: wire.OpenACLUnsafe})
	require.NoError(t, r.Err)
	data[0] = 'j'
	got, _, err := e.tr.GetData("/a")
	require.NoError(t, err)
	require.Equal(t, "hello", string(got))
	require.Equal(t, 5, cap(got), "callers cannot append into the node's buffer")

	require.NoError(t, e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/null", ACL: wire.OpenACLUnsafe}).Err)
	got, st, _ := e.tr.GetData("/null")
	require.Nil(t, got)
	require.Zero(t, st.DataLength)
	require.NoError(t, e.apply(wire.OpSetData, &wire.SetDataRequest{Path: "/null", Data: []byte{}, Version: -1}).Err)
	got, _, _ = e.tr.GetData("/null")
	require.NotNil(t, got)
	require.Empty(t, got)

	// The old buffer becomes garbage once setData replaces it.
	n := e.tr.lookup("/a")
	freed := make(chan struct{})
	runtime.AddCleanup(&n.buf[0], func(ch chan struct{}) { close(ch) }, freed)
	require.NoError(t, e.apply(wire.OpSetData, &wire.SetDataRequest{Path: "/a", Data: make([]byte, 200), Version: -1}).Err)
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		select {
		case <-freed:
			got, _, _ = e.tr.GetData("/a")
			require.Len(t, got, 200)
			require.NotNil(t, e.tr.lookup("/a"), "the child is still found by name")
			return
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the replaced buffer is still reachable")
		}
	}
}
