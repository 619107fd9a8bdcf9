package integration

import (
	"time"

	"github.com/go-zookeeper/zk"
)

// The soak's fault schedule: one fault at the start of every period, in a
// fixed cycle; the victim follower and how long the fault lasts come from
// the seeded random source.

var faultCycle = []string{"leader-kill", "follower-restart", "minority-partition", "leader-partition", "leader-stop"}

func faultName(period int) string { return faultCycle[period%len(faultCycle)] }

// faultWindow is how long after a fault on the leader the first write
// issued after it was acknowledged.
type faultWindow struct {
	fault string
	d     time.Duration
	ok    bool // false: no write got through within probeLimit
}

const probeLimit = time.Minute

// injectFault applies the period's fault, holds it for 2-6 s (or until
// writes get through again, if that takes longer), and undoes it: a
// killed or stopped server restarts from its data directory, a partition
// heals.
func (s *soak) injectFault(period int) {
	name := faultName(period)
	s.faults[name]++
	leader := s.c.WaitForLeader()
	follower := others(leader)[s.rng.Intn(2)]
	hold := 2*time.Second + time.Duration(s.rng.Int63n(int64(4*time.Second)))
	t0 := time.Now()
	switch name {
	case "leader-kill":
		s.c.Kill(leader)
		s.probe(name, t0)
	case "leader-stop":
		s.c.Stop(leader)
		s.probe(name, t0)
	case "follower-restart":
		s.c.Stop(follower)
	case "minority-partition":
		s.c.Partition([]int{follower}, others(follower))
	case "leader-partition":
		s.c.Partition([]int{leader}, others(leader))
		s.probe(name, t0)
	}
	sleepUntil(t0.Add(hold), nil) // the fault lasts this long
	switch name {
	case "leader-kill", "leader-stop":
		s.c.Restart(leader)
	case "follower-restart":
		s.c.Restart(follower)
	default:
		s.c.Heal()
	}
}

// probe writes through a client on every server until a write issued after
// the fault is acknowledged, and records how long that took.
func (s *soak) probe(fault string, t0 time.Time) {
	for time.Since(t0) < probeLimit {
		if _, err := s.probeConn.Set(probePath, nil, -1); err == nil {
			s.unavail = append(s.unavail, faultWindow{fault: fault, d: time.Since(t0), ok: true})
			return
		}
		time.Sleep(10 * time.Millisecond) // retry pace while there is no leader
	}
	s.unavail = append(s.unavail, faultWindow{fault: fault, d: probeLimit})
	s.found.add("%s: no write acknowledged within %v", fault, probeLimit)
}

const probePath = "/soak/probe"

func (s *soak) setupProbe() {
	s.probeConn = s.connect()
	if _, err := s.probeConn.Create(probePath, nil, 0, openACL); err != nil && err != zk.ErrNodeExists {
		s.t.Fatalf("soak: create %s: %v", probePath, err)
	}
}
