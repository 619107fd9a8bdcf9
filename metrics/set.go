package metrics

import (
	"errors"
	"fmt"
	"sync"
)

// ErrKindMismatch is the panic value when a name is registered twice as
// different kinds or levels: a programming error, as in ZooKeeper.
var ErrKindMismatch = errors.New("metrics: name already registered as another kind")

// Kind is what a registered metric is.
type Kind int

const (
	// KindCounter is a Counter.
	KindCounter Kind = iota
	// KindSummary is a Summary.
	KindSummary
	// KindSummarySet is a SummarySet.
	KindSummarySet
)

// Metric is one registered metric; exactly the field of its Kind is set.
type Metric struct {
	Name       string
	Kind       Kind
	Counter    *Counter
	Summary    *Summary
	SummarySet *SummarySet
}

// Set is one server's metrics in registration order (ZooKeeper's
// ServerMetrics, per server rather than per process, so that the members
// of an in-process ensemble keep their own).
type Set struct {
	mu     sync.Mutex
	all    []Metric
	byName map[string]int
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{byName: map[string]int{}} }

// register returns the metric called name, creating it with make when it
// is new; an existing one must be of the same kind and level.
func (s *Set) register(name string, kind Kind, level Level, make func() Metric) Metric {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, ok := s.byName[name]; ok {
		m := s.all[i]
		if m.Kind != kind || (kind == KindSummary && m.Summary.level != level) ||
			(kind == KindSummarySet && m.SummarySet.level != level) {
			panic(fmt.Errorf("%w: %s", ErrKindMismatch, name))
		}
		return m
	}
	m := make()
	m.Name, m.Kind = name, kind
	s.byName[name] = len(s.all)
	s.all = append(s.all, m)
	return m
}

// Counter returns the counter called name, registering it on first use.
func (s *Set) Counter(name string) *Counter {
	return s.register(name, KindCounter, 0, func() Metric { return Metric{Counter: new(Counter)} }).Counter
}

// Summary returns the summary called name, registering it on first use.
func (s *Set) Summary(name string, l Level) *Summary {
	return s.register(name, KindSummary, l, func() Metric { return Metric{Summary: newSummary(l)} }).Summary
}

// SummarySet returns the summary set called name, registering it on
// first use.
func (s *Set) SummarySet(name string, l Level) *SummarySet {
	return s.register(name, KindSummarySet, l, func() Metric {
		return Metric{SummarySet: &SummarySet{name: name, level: l}}
	}).SummarySet
}

// Each calls fn for every metric in registration order.
func (s *Set) Each(fn func(Metric)) {
	s.mu.Lock()
	all := s.all[:len(s.all):len(s.all)]
	s.mu.Unlock()
	for _, m := range all {
		fn(m)
	}
}
