package recipes_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// queueLen returns the queue's length, failing the test on error.
func queueLen(t *testing.T, ctx context.Context, q interface {
	Len(context.Context) (int, error)
}) int {
	t.Helper()
	n, err := q.Len(ctx)
	require.NoError(t, err)
	return n
}

// queueLeftovers lists the queue's claim nodes and put markers, left only
// by a consumer or producer that died in the middle of a Take or Put.
func queueLeftovers(t *testing.T, c *zk.Conn, dir string) []string {
	t.Helper()
	var out []string
	for _, sub := range []string{"claims", "puts"} {
		kids, _, err := c.Children(dir + "/" + sub)
		if err == zk.ErrNoNode {
			continue
		}
		require.NoError(t, err)
		out = append(out, kids...)
	}
	return out
}

func TestQueue_FIFOWithOneConsumer(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	const dir = "/queues/fifo"
	producer, consumer := recipes.NewQueue(cs[0], dir), recipes.NewQueue(cs[1], dir)
	require.Zero(t, queueLen(t, ctx, consumer), "no queue yet: empty")
	const n = 30
	for i := range n {
		require.NoError(t, producer.Put(ctx, []byte(fmt.Sprint(i))))
	}
	require.Equal(t, n, queueLen(t, ctx, consumer))
	for i := range n {
		data, err := consumer.Take(ctx)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint(i), string(data), "FIFO order")
	}
	require.Zero(t, queueLen(t, ctx, consumer))
	require.Empty(t, queueLeftovers(t, cs[0], dir))
}

func TestQueue_TakeBlocksUntilPut(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	const dir = "/queues/block"
	got := make(chan []byte, 1)
	errs := make(chan error, 1)
	go func() {
		data, err := recipes.NewQueue(cs[0], dir).Take(ctx)
		errs <- err
		got <- data
	}()
	// Take creates the missing directory before it watches it.
	eventually(t, func() bool { ok, _, _ := cs[1].Exists(dir); return ok }, "the consumer at work")
	select {
	case <-errs:
		t.Fatal("Take returned from an empty queue")
	default:
	}
	require.NoError(t, recipes.NewQueue(cs[1], dir).Put(ctx, []byte("job")))
	require.NoError(t, <-errs)
	require.Equal(t, "job", string(<-got))
}

func TestQueue_TakeCancelledTakesNothing(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	const dir = "/queues/cancel"
	q := recipes.NewQueue(cs[0], dir)
	tctx, cancel := context.WithCancel(ctx)
	errs := make(chan error, 1)
	go func() {
		_, err := q.Take(tctx)
		errs <- err
	}()
	eventually(t, func() bool { ok, _, _ := cs[1].Exists(dir); return ok }, "the consumer at work")
	cancel()
	require.ErrorIs(t, <-errs, context.Canceled)

	require.NoError(t, recipes.NewQueue(cs[1], dir).Put(ctx, []byte("kept")))
	data, err := q.Take(ctx)
	require.NoError(t, err)
	require.Equal(t, "kept", string(data), "the cancelled Take took nothing")
}

// A consumer whose session expires while it waits keeps waiting with its
// new session and gets the next item.
func TestQueue_TakeSurvivesSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	const dir = "/queues/expiry"
	producer := recipes.NewQueue(cs[1], dir)
	require.NoError(t, producer.Put(ctx, []byte("first")))
	consumer := recipes.NewQueue(cs[0], dir)
	data, err := consumer.Take(ctx)
	require.NoError(t, err)
	require.Equal(t, "first", string(data))

	got := make(chan string, 1)
	go func() {
		data, err := consumer.Take(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- string(data)
	}()
	require.NoError(t, srv.ExpireSession(ctx, cs[0].SessionID()))
	require.NoError(t, producer.Put(ctx, []byte("second")))
	require.Equal(t, "second", <-got)
	require.Zero(t, queueLen(t, ctx, producer))
}

// queueExchange runs producers and consumers, each on its own client, over one
// queue and returns what the consumers took.
func queueExchange(t *testing.T, ctx context.Context, srv *integration.Server, dir string, producers, consumers, perProducer int) []string {
	t.Helper()
	cs := clients(t, srv, producers+consumers)
	total := producers * perProducer
	taken := make(chan string, total+consumers)
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for i := range consumers {
		q := recipes.NewQueue(cs[producers+i], dir)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				data, err := q.Take(cctx)
				if err != nil {
					if cctx.Err() == nil {
						t.Errorf("consumer %d: %v", i, err)
					}
					return
				}
				taken <- string(data)
			}
		}()
	}
	for p := range producers {
		q := recipes.NewQueue(cs[p], dir)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perProducer {
				if err := q.Put(ctx, []byte(fmt.Sprintf("p%d-%03d", p, i))); err != nil {
					t.Errorf("producer %d: %v", p, err)
					return
				}
			}
		}()
	}
	var got []string
	for len(got) < total {
		select {
		case s := <-taken:
			got = append(got, s)
		case <-ctx.Done():
			t.Fatalf("took %d of %d items", len(got), total)
		}
	}
	stop() // every item is out: the consumers now wait on an empty queue
	wg.Wait()
	close(taken)
	for s := range taken {
		got = append(got, s) // none, unless an item was taken twice
	}
	return got
}

// queueWant lists the items queueExchange's producers put.
func queueWant(producers, perProducer int) []string {
	var out []string
	for p := range producers {
		for i := range perProducer {
			out = append(out, fmt.Sprintf("p%d-%03d", p, i))
		}
	}
	return out
}

func TestQueue_ManyProducersAndConsumersTakeEachItemOnce(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/queues/many"
	got := queueExchange(t, ctx, srv, dir, 4, 5, 40)
	slices.Sort(got)
	require.Equal(t, queueWant(4, 40), got, "every item taken exactly once")
	c := clients(t, srv, 1)[0]
	require.Zero(t, queueLen(t, ctx, recipes.NewQueue(c, dir)))
	require.Empty(t, queueLeftovers(t, c, dir))
}

// Lost replies to producers' puts and to consumers' claims (both multis),
// and multis lost before they ran, in the middle of a busy exchange: still
// every item is taken once.
func TestQueue_EachItemOnceDespiteLostReplies(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/queues/faults"
	c := clients(t, srv, 1)[0]
	require.NoError(t, recipes.NewQueue(c, dir).Put(ctx, []byte("p9-000")))
	_, err := recipes.NewQueue(c, dir).Take(ctx) // creates the claims directory
	require.NoError(t, err)
	for _, f := range []server.Fault{
		{Ops: []wire.Op{wire.OpMulti}, Drop: server.DropReply, Count: 8},
		{Ops: []wire.Op{wire.OpMulti}, Drop: server.DropRequest, Count: 3},
	} {
		require.NoError(t, srv.InjectFault(f))
	}
	got := queueExchange(t, ctx, srv, dir, 3, 3, 10)
	slices.Sort(got)
	require.Equal(t, queueWant(3, 10), got, "every item taken exactly once")
	require.Zero(t, queueLen(t, ctx, recipes.NewQueue(c, dir)))
	require.Empty(t, queueLeftovers(t, c, dir))
}

func TestQueue_LostPutReplyDoesNotDuplicate(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c, drops := countingDrops(t, srv)
	const dir = "/queues/lost-put"
	q := recipes.NewQueue(c, dir)
	require.NoError(t, q.Put(ctx, []byte("one"))) // creates the directory
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpMulti}, Session: c.SessionID(), Drop: server.DropReply}))
	require.NoError(t, q.Put(ctx, []byte("two")))
	require.Equal(t, int32(1), drops.Load(), "the reply was lost")
	require.Equal(t, 2, queueLen(t, ctx, q), "the item was added once")
	for _, want := range []string{"one", "two"} {
		data, err := q.Take(ctx)
		require.NoError(t, err)
		require.Equal(t, want, string(data))
	}
	require.Zero(t, queueLen(t, ctx, q))
}

// A waiting consumer may take an item before its producer, whose reply was
// lost, has reconnected to find out whether its put ran: the put must not
// be repeated then either (a directory listing would no longer show it).
func TestQueue_LostPutReplyItemTakenMeanwhile(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c, drops := countingDrops(t, srv)
	consumer := recipes.NewQueue(clients(t, srv, 1)[0], "/queues/lost-put-taken")
	producer := recipes.NewQueue(c, "/queues/lost-put-taken")
	require.NoError(t, producer.Put(ctx, []byte("setup"))) // creates the directories
	data, err := consumer.Take(ctx)
	require.NoError(t, err)
	require.Equal(t, "setup", string(data))

	got := make(chan string, 1)
	go func() {
		data, err := consumer.Take(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- string(data)
	}()
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpMulti}, Session: c.SessionID(), Drop: server.DropReply}))
	require.NoError(t, producer.Put(ctx, []byte("once")))
	require.Equal(t, int32(1), drops.Load(), "the reply was lost")
	require.Equal(t, "once", <-got)
	require.Zero(t, queueLen(t, ctx, producer), "the put was not repeated")
	require.Empty(t, queueLeftovers(t, c, "/queues/lost-put-taken"))
}

// A claim whose reply is lost (it ran) or whose request is lost (it did
// not) neither loses the item nor hands it out twice.
func TestQueue_LostClaimNeitherLosesNorDuplicates(t *testing.T) {
	for _, drop := range []server.Drop{server.DropReply, server.DropRequest} {
		name := map[server.Drop]string{server.DropReply: "reply lost", server.DropRequest: "request lost"}[drop]
		t.Run(name, func(t *testing.T) {
			srv := integration.StartServer(t)
			ctx := testCtx(t)
			c, drops := countingDrops(t, srv)
			other := clients(t, srv, 1)[0]
			const dir = "/queues/lost-claim"
			q := recipes.NewQueue(c, dir)
			for _, s := range []string{"a", "b", "c"} {
				require.NoError(t, q.Put(ctx, []byte(s)))
			}
			require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpMulti}, Session: c.SessionID(), Drop: drop}))
			data, err := q.Take(ctx)
			require.NoError(t, err)
			require.Equal(t, int32(1), drops.Load(), "the claim's connection was cut")
			require.Equal(t, "a", string(data), "the first item, taken once")
			require.Equal(t, 2, queueLen(t, ctx, q))
			require.Empty(t, queueLeftovers(t, c, dir), "the claim was cleaned up")
			for _, want := range []string{"b", "c"} {
				data, err := recipes.NewQueue(other, dir).Take(ctx)
				require.NoError(t, err)
				require.Equal(t, want, string(data))
			}
		})
	}
}

// Item names sort in taking order once their protected tag is stripped.
func TestQueue_ItemNodeNames(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	items := func(dir string) []string {
		kids, _, err := c.Children(dir)
		require.NoError(t, err)
		var out []string
		for _, k := range kids {
			if strings.Contains(k, "-item-") {
				out = append(out, k[strings.Index(k, "-item-")+1:])
			}
		}
		slices.Sort(out)
		return out
	}
	require.NoError(t, recipes.NewQueue(c, "/queues/names").Put(ctx, []byte("x")))
	require.Regexp(t, `^item-\d{10}$`, items("/queues/names")[0])
	require.NoError(t, recipes.NewPriorityQueue(c, "/queues/names-p").Put(ctx, []byte("y"), -2))
	require.Regexp(t, `^item-n9223372036854775806-\d{10}$`, items("/queues/names-p")[0])
	require.NoError(t, recipes.NewPriorityQueue(c, "/queues/names-p").Put(ctx, []byte("y"), 7))
	require.Regexp(t, `^item-p0000000000000000007-\d{10}$`, items("/queues/names-p")[1])
}

func TestPriorityQueue_Order(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	const dir = "/queues/priority"
	producer, consumer := recipes.NewPriorityQueue(cs[0], dir), recipes.NewPriorityQueue(cs[1], dir)
	puts := []struct {
		data     string
		priority int
	}{
		{"5a", 5}, {"-3a", -3}, {"0a", 0}, {"5b", 5}, {"1a", 1}, {"-3b", -3},
		{"100a", 100}, {"min", math.MinInt}, {"max", math.MaxInt}, {"0b", 0}, {"-1a", -1},
	}
	for _, p := range puts {
		require.NoError(t, producer.Put(ctx, []byte(p.data), p.priority))
	}
	require.Equal(t, len(puts), queueLen(t, ctx, consumer))
	var got []string
	for range puts {
		data, err := consumer.Take(ctx)
		require.NoError(t, err)
		got = append(got, string(data))
	}
	require.Equal(t, []string{"min", "-3a", "-3b", "-1a", "0a", "0b", "1a", "5a", "5b", "100a", "max"}, got,
		"lowest number first, FIFO among equals")
	require.Zero(t, queueLen(t, ctx, consumer))
}

// A waiting consumer gets the most urgent item even when a less urgent one
// was put first, as long as both are there when it looks.
func TestPriorityQueue_TakeBlocksUntilPut(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	const dir = "/queues/priority-block"
	got := make(chan string, 1)
	go func() {
		data, err := recipes.NewPriorityQueue(cs[0], dir).Take(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- string(data)
	}()
	eventually(t, func() bool { ok, _, _ := cs[1].Exists(dir); return ok }, "the consumer at work")
	require.NoError(t, recipes.NewPriorityQueue(cs[1], dir).Put(ctx, []byte("urgent"), 0))
	require.Equal(t, "urgent", <-got)
}
