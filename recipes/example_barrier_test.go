package recipes_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
)

// barrierExampleServer starts an in-process zkraft server for the examples
// below. connect returns a new client (its own session); stop closes the
// clients and the server.
func barrierExampleServer() (connect func() *zk.Conn, stop func()) {
	cfg := server.DefaultConfig()
	cfg.ClientPort = 0
	srv, err := server.New(cfg)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		panic(err)
	}
	var mu sync.Mutex
	var conns []*zk.Conn
	connect = func() *zk.Conn {
		c, events, err := zk.Connect([]string{srv.Addr()}, 10*time.Second, zk.WithLogger(barrierExampleLogger{}))
		if err != nil {
			panic(err)
		}
		for c.State() != zk.StateHasSession {
			<-events
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		return c
	}
	stop = func() {
		for _, c := range conns {
			c.Close()
		}
		srv.Close()
	}
	return connect, stop
}

type barrierExampleLogger struct{}

func (barrierExampleLogger) Printf(string, ...any) {}

// Workers wait at a barrier until a coordinator removes it.
func ExampleBarrier() {
	connect, stop := barrierExampleServer()
	defer stop()
	ctx := context.Background()

	gate := recipes.NewBarrier(connect(), "/app/start-gate")
	if err := gate.Set(ctx); err != nil {
		panic(err)
	}

	released := make(chan struct{})
	go func() {
		// A worker, on its own client.
		if err := recipes.NewBarrier(connect(), "/app/start-gate").Wait(ctx); err != nil {
			panic(err)
		}
		fmt.Println("worker: released")
		close(released)
	}()

	fmt.Println("coordinator: removing the barrier")
	if err := gate.Remove(ctx); err != nil {
		panic(err)
	}
	<-released
	// Output:
	// coordinator: removing the barrier
	// worker: released
}

// Three workers start a round of computation together and finish it
// together.
func ExampleDoubleBarrier() {
	connect, stop := barrierExampleServer()
	defer stop()
	ctx := context.Background()

	const workers = 3
	results := make([]string, workers)
	var wg sync.WaitGroup
	for i := range workers {
		conn := connect()
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := recipes.NewDoubleBarrier(conn, "/app/round", workers)
			if err := b.Enter(ctx); err != nil { // until all three are in
				panic(err)
			}
			results[i] = fmt.Sprintf("worker %d computed its share", i)
			if err := b.Leave(ctx); err != nil { // until all three are out
				panic(err)
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		fmt.Println(r)
	}
	// Output:
	// worker 0 computed its share
	// worker 1 computed its share
	// worker 2 computed its share
}

// A producer hands jobs to a consumer in order; each job is taken once,
// however many consumers there are.
func ExampleQueue() {
	connect, stop := barrierExampleServer()
	defer stop()
	ctx := context.Background()

	producer := recipes.NewQueue(connect(), "/app/jobs")
	for _, job := range []string{"resize a.png", "resize b.png", "resize c.png"} {
		if err := producer.Put(ctx, []byte(job)); err != nil {
			panic(err)
		}
	}

	consumer := recipes.NewQueue(connect(), "/app/jobs")
	for range 3 {
		job, err := consumer.Take(ctx) // waits while the queue is empty
		if err != nil {
			panic(err)
		}
		fmt.Println(string(job))
	}
	// Output:
	// resize a.png
	// resize b.png
	// resize c.png
}

// Lower priority numbers are taken first; equal priorities in FIFO order.
func ExamplePriorityQueue() {
	connect, stop := barrierExampleServer()
	defer stop()
	ctx := context.Background()

	q := recipes.NewPriorityQueue(connect(), "/app/tickets")
	for _, t := range []struct {
		what     string
		priority int
	}{{"typo on the about page", 3}, {"site down", 0}, {"slow search", 1}, {"checkout fails", 0}} {
		if err := q.Put(ctx, []byte(t.what), t.priority); err != nil {
			panic(err)
		}
	}
	for range 4 {
		ticket, err := q.Take(ctx)
		if err != nil {
			panic(err)
		}
		fmt.Println(string(ticket))
	}
	// Output:
	// site down
	// checkout fails
	// slow search
	// typo on the about page
}
