package main

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/zkraft/zkraft/server"
)

// cfgFlag is the repeatable -cfg key=value: zoo.cfg lines zkbench adds to
// every built-in target it starts, zkraft's (the zkserver targets' zoo.cfg
// files and the in-process zkraft and zkraft3 servers' configurations) and
// ZooKeeper's (realzk.Options.ExtraConfig). A key given twice takes its
// last value; a key zkbench writes itself (maxClientCnxns, forceSync...)
// is overridden.
type cfgFlag []cfgLine

// cfgLine is one -cfg key=value.
type cfgLine struct{ key, value string }

func (c *cfgFlag) String() string {
	if c == nil {
		return ""
	}
	var parts []string
	for _, l := range *c {
		parts = append(parts, l.key+"="+l.value)
	}
	return strings.Join(parts, " ")
}

func (c *cfgFlag) Set(s string) error {
	if strings.ContainsAny(s, "\r\n") {
		return errors.New("want one key=value zoo.cfg line, not several")
	}
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" {
		return fmt.Errorf("want key=value (a zoo.cfg line), not %q", s)
	}
	if strings.HasPrefix(k, "#") || strings.HasPrefix(k, "!") {
		return fmt.Errorf("key %q: a zoo.cfg comment, not a key", k)
	}
	*c = append(*c, cfgLine{k, v})
	return nil
}

// config returns the lines as a map, the last value of a key winning; nil
// when there are none.
func (c cfgFlag) config() map[string]string {
	if len(c) == 0 {
		return nil
	}
	m := make(map[string]string, len(c))
	for _, l := range c {
		m[l.key] = l.value
	}
	return m
}

// keys returns the keys, sorted, once each.
func (c cfgFlag) keys() []string {
	var ks []string
	for _, l := range c {
		ks = append(ks, l.key)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// zooKeeperExtra returns zkbench's own ZooKeeper ExtraConfig, maxClientCnxns=0,
// with the -cfg lines over it.
func (c cfgFlag) zooKeeperExtra() map[string]string {
	m := map[string]string{"maxClientCnxns": "0"}
	for _, l := range c {
		m[l.key] = l.value
	}
	return m
}

// zoocfg returns cfg, a zoo.cfg zkbench wrote, with the -cfg lines: a key
// cfg has is given its value where it is, the others are added at the end.
func (c cfgFlag) zoocfg(cfg []byte) []byte {
	if len(c) == 0 {
		return cfg
	}
	return setConfig(cfg, c.config())
}

// apply returns cfg, the configuration of an in-process zkraft server, with
// the -cfg lines: it parses a minimal zoo.cfg with and without them, as
// cmd/zkserver would, and copies into cfg every field the lines changed.
// A key zkraft ignores (unknown, or not implemented) is an error, as it
// would be silently without effect.
func (c cfgFlag) apply(cfg server.Config) (server.Config, error) {
	if len(c) == 0 {
		return cfg, nil
	}
	base := "clientPort=2181\n"
	without, err := server.ParseConfig(strings.NewReader(base), "")
	if err != nil {
		return cfg, fmt.Errorf("-cfg: %w", err)
	}
	var b strings.Builder
	b.WriteString(base)
	for _, l := range c {
		fmt.Fprintf(&b, "%s=%s\n", l.key, l.value)
	}
	with, err := server.ParseConfig(strings.NewReader(b.String()), "")
	if err != nil {
		return cfg, fmt.Errorf("-cfg for the in-process zkraft servers: %w", err)
	}
	if len(with.Ignored) > 0 {
		return cfg, fmt.Errorf("-cfg for the in-process zkraft servers: zkraft ignores %s", strings.Join(with.Ignored, ", "))
	}
	out := reflect.ValueOf(&cfg).Elem()
	wv, wo := reflect.ValueOf(with), reflect.ValueOf(without)
	for i := range wv.NumField() {
		if !reflect.DeepEqual(wv.Field(i).Interface(), wo.Field(i).Interface()) {
			out.Field(i).Set(wv.Field(i))
		}
	}
	return cfg, nil
}
