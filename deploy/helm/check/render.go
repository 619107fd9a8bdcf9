package check

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// Release is the release name and namespace the check renders with.
const (
	Release   = "zk"
	Namespace = "default"
)

// Render renders the chart in dir with values over its values.yaml, as
// `helm template zk dir -f values` does (lookup finds nothing, as there is
// no cluster). It returns the rendered documents by template file, sorted,
// without NOTES.txt and empty documents.
func Render(dir string, values map[string]any) ([]Doc, error) {
	chrt, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	if err := chrt.Validate(); err != nil {
		return nil, err
	}
	vals, err := chartutil.ToRenderValues(chrt, values, chartutil.ReleaseOptions{Name: Release, Namespace: Namespace, IsInstall: true, Revision: 1}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	out, err := engine.Render(chrt, vals)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, n)
	}
	sort.Strings(names)
	var docs []Doc
	for _, n := range names {
		if path.Base(n) == "NOTES.txt" || strings.HasPrefix(path.Base(n), "_") {
			continue
		}
		for i, d := range docSep.Split(out[n], -1) {
			if strings.TrimSpace(stripComments(d)) == "" {
				continue
			}
			docs = append(docs, Doc{Source: fmt.Sprintf("%s#%d", n, i+1), YAML: d})
		}
	}
	return docs, nil
}

// Doc is one rendered YAML document.
type Doc struct {
	Source string // template file and document number
	YAML   string
}

// stripComments drops whole-line comments.
func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
