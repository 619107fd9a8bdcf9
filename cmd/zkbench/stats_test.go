package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestPercentileSmallValuesAreExact(t *testing.T) {
	h := newHistogram()
	for v := 100; v >= 1; v-- {
		h.record(time.Duration(v))
	}
	cases := []struct {
		p    float64
		want time.Duration
	}{{0.001, 1}, {1, 1}, {50, 50}, {90, 90}, {99, 99}, {99.9, 100}, {100, 100}}
	for _, c := range cases {
		if got := h.percentile(c.p); got != c.want {
			t.Errorf("percentile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if h.count() != 100 || h.mean() != 50 || h.maximum() != 100 {
		t.Errorf("count %d mean %v max %v, want 100, 50ns (50.5 truncated), 100ns", h.count(), h.mean(), h.maximum())
	}
}

// exactPercentile is the nearest-rank percentile of sorted samples.
func exactPercentile(sorted []int64, p float64) int64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func TestPercentileWithinBucketResolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := newHistogram()
	samples := make([]int64, 100000)
	for i := range samples {
		// log-uniform between 1 µs and 1 s
		samples[i] = int64(math.Exp(math.Log(1e3) + rng.Float64()*math.Log(1e6)))
		h.record(time.Duration(samples[i]))
	}
	slices.Sort(samples)
	for _, p := range []float64{1, 10, 50, 90, 99, 99.9, 99.99, 100} {
		want := exactPercentile(samples, p)
		got := int64(h.percentile(p))
		if got < want || float64(got-want) > float64(want)/subCount {
			t.Errorf("percentile(%v) = %d, exact %d: off by more than 1/%d", p, got, want, subCount)
		}
	}
	if h.maximum() != time.Duration(samples[len(samples)-1]) {
		t.Errorf("max %v, want %d", h.maximum(), samples[len(samples)-1])
	}
}

func TestBucketsAreContiguous(t *testing.T) {
	// Every value lands in a bucket whose upper bound is at least the value
	// and whose predecessor's upper bound is below it.
	values := []int64{0, 1, 127, 128, 255, 256, 257, 383, 511, 512, 1000, 1 << 20, 123456789, 1<<37 - 1}
	for v := int64(1); v < 1<<36; v = v*3/2 + 1 {
		values = append(values, v-1, v, v+1)
	}
	for _, v := range values {
		i := bucketIndex(v)
		if i < 0 || i >= numBuckets {
			t.Fatalf("bucketIndex(%d) = %d, out of [0,%d)", v, i, numBuckets)
		}
		if up := bucketUpper(i); up < v {
			t.Errorf("value %d in bucket %d with upper bound %d", v, i, up)
		}
		if i > 0 && bucketUpper(i-1) >= v {
			t.Errorf("value %d in bucket %d, but bucket %d reaches %d", v, i, i-1, bucketUpper(i-1))
		}
	}
	if got := bucketIndex(math.MaxInt64); got != numBuckets-1 {
		t.Errorf("huge value in bucket %d, want the last, %d", got, numBuckets-1)
	}
}

func TestMergeEqualsRecordingEverything(t *testing.T) {
	all, a, b := newHistogram(), newHistogram(), newHistogram()
	for i := range 5000 {
		d := time.Duration(i*i + 7)
		all.record(d)
		if i%3 == 0 {
			a.record(d)
		} else {
			b.record(d)
		}
	}
	a.merge(b)
	a.merge(newHistogram()) // an empty worker changes nothing
	for _, p := range []float64{1, 50, 99, 99.9, 100} {
		if a.percentile(p) != all.percentile(p) {
			t.Errorf("p%v: merged %v, direct %v", p, a.percentile(p), all.percentile(p))
		}
	}
	if a.count() != all.count() || a.mean() != all.mean() || a.maximum() != all.maximum() || a.min != all.min {
		t.Errorf("merged %d/%v/%v, direct %d/%v/%v", a.count(), a.mean(), a.maximum(), all.count(), all.mean(), all.maximum())
	}
}

func TestEmptyHistogram(t *testing.T) {
	h := newHistogram()
	if h.percentile(50) != 0 || h.mean() != 0 || h.maximum() != 0 {
		t.Errorf("empty histogram: p50 %v mean %v max %v, want zeros", h.percentile(50), h.mean(), h.maximum())
	}
}

func TestMedian(t *testing.T) {
	cases := []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}}
	for _, c := range cases {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
