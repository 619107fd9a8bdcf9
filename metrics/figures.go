package metrics

// Figure is one mntr line of a Set: Key without "zk_", Value an int64 or,
// for averages, a float64.
type Figure struct {
	Key   string
	Value any
}

// Figures expands the set as ZooKeeper's default metrics provider dumps
// it into mntr: a counter as its name; a summary as avg_, min_, max_,
// cnt_ and sum_ of its name and, for an Advanced one, p50_, p95_, p99_
// and p999_; a summary set the same per key, as avg_<key>_<name>.
func (s *Set) Figures() []Figure {
	var out []Figure
	s.Each(func(m Metric) {
		switch m.Kind {
		case KindCounter:
			out = append(out, Figure{m.Name, m.Counter.Value()})
		case KindSummary:
			out = appendSummary(out, m.Name, m.Summary)
		case KindSummarySet:
			for _, k := range m.SummarySet.Keys() {
				out = appendSummary(out, k+"_"+m.Name, m.SummarySet.Get(k))
			}
		}
	})
	return out
}

// appendSummary appends the figures of one summary.
func appendSummary(out []Figure, name string, s *Summary) []Figure {
	v := s.Value()
	out = append(out,
		Figure{"avg_" + name, v.Avg()},
		Figure{"min_" + name, v.Min},
		Figure{"max_" + name, v.Max},
		Figure{"cnt_" + name, v.Count},
		Figure{"sum_" + name, v.Sum})
	if s.level != Advanced {
		return out
	}
	for _, p := range MntrPercentiles {
		q := v.Quantiles[p.Quantile]
		if q != q { // NaN: nothing in the window
			q = 0
		}
		out = append(out, Figure{p.Prefix + "_" + name, int64(q)})
	}
	return out
}
