package metrics

import (
	"slices"
	"sync"
	"time"
)

// SummarySet is a family of summaries told apart by a key (ZooKeeper's
// SummarySet; Prometheus label "key"), such as the bytes read per
// top-level znode.
type SummarySet struct {
	name  string
	level Level
	byKey sync.Map // string -> *Summary
	mu    sync.Mutex
}

// Level returns the set's detail level.
func (s *SummarySet) Level() Level { return s.level }

// Observe records v in key's summary, creating it on first use.
func (s *SummarySet) Observe(key string, v int64) { s.get(key).Observe(v) }

// ObserveAt is Observe at a time the caller has (see Summary.ObserveAt).
func (s *SummarySet) ObserveAt(key string, v int64, at time.Time) { s.get(key).ObserveAt(v, at) }

// get returns key's summary, creating it on first use.
func (s *SummarySet) get(key string) *Summary {
	if sum, ok := s.byKey.Load(key); ok {
		return sum.(*Summary)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sum, ok := s.byKey.Load(key)
	if !ok {
		sum = newSummary(s.level)
		s.byKey.Store(key, sum)
	}
	return sum.(*Summary)
}

// Keys returns the keys observed so far, sorted.
func (s *SummarySet) Keys() []string {
	var keys []string
	s.byKey.Range(func(k, _ any) bool {
		keys = append(keys, k.(string))
		return true
	})
	slices.Sort(keys)
	return keys
}

// Get returns key's summary, or nil.
func (s *SummarySet) Get(key string) *Summary {
	if sum, ok := s.byKey.Load(key); ok {
		return sum.(*Summary)
	}
	return nil
}
