package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// errUnknownLicense is returned for a text that matches no known license.
var errUnknownLicense = errors.New("license not identified")

// A licenseRule identifies one license: a text is that license when it
// holds every phrase in all, none in none, and has at most maxWords
// words (the canonical text, a few copyright lines and a short preamble:
// a longer file holds terms the phrases do not cover).
type licenseRule struct {
	id       string
	all      []string
	none     []string
	maxWords int
}

// Phrases are written as in the canonical texts; they are compared after
// normalize, so case, punctuation, quotes and line breaks do not matter.
var licenseRules = []licenseRule{
	{
		id: "Apache-2.0",
		all: []string{
			"Apache License Version 2.0, January 2004",
			"TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
			"Grant of Patent License.",
			"Redistribution. You may reproduce and distribute copies of the Work or Derivative Works thereof in any medium, with or without modifications",
			"Limitation of Liability.",
		},
		maxWords: 1700,
	},
	{
		id: "MPL-2.0",
		all: []string{
			"Mozilla Public License Version 2.0",
			`"Contributor" means each individual or legal entity that creates, contributes to the creation of, or owns Covered Software.`,
			`"Incompatible With Secondary Licenses" means`,
			"Distribution of Executable Form",
			"This Source Code Form is subject to the terms of the Mozilla Public License, v. 2.0.",
		},
		maxWords: 2600,
	},
	{
		id: "MIT",
		all: []string{
			`Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction`,
			"The above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.",
			`THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND`,
		},
		none:     []string{"shall be used for Good, not Evil"},
		maxWords: 300,
	},
	{
		id:       "BSD-3-Clause",
		all:      slices.Concat(bsdClauses, []string{"may be used to endorse or promote products derived from this software without specific prior written permission"}),
		none:     []string{"All advertising materials mentioning features or use of this software"},
		maxWords: 350,
	},
	{
		id:       "BSD-2-Clause",
		all:      bsdClauses,
		none:     []string{"endorse or promote products", "All advertising materials mentioning features or use of this software"},
		maxWords: 300,
	},
	{
		id: "ISC",
		all: []string{
			"distribute this software for any purpose with or without fee is hereby granted, provided that the above copyright notice and this permission notice appear in all copies.",
			`THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE`,
		},
		maxWords: 200,
	},
}

// bsdClauses are the phrases the BSD licenses share.
var bsdClauses = []string{
	"Redistribution and use in source and binary forms, with or without modification, are permitted provided that the following conditions are met:",
	"Redistributions of source code must retain the above copyright notice, this list of conditions and the following disclaimer.",
	"Redistributions in binary form must reproduce the above copyright notice, this list of conditions and the following disclaimer in the documentation and/or other materials provided with the distribution.",
	"THIS SOFTWARE IS PROVIDED BY",
	`"AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES`,
}

// normalize lowercases s and turns every run of characters other than
// letters and digits into one space, so that phrases match across
// reflowed lines, comment markers and quote styles.
func normalize(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// classify gives the SPDX identifier of the license text holds. It
// fails when no rule matches, when more than one does (a file that
// holds two licenses must be read by a person), or when the text is
// longer than the license it matches allows.
func classify(text string) (string, error) {
	n := " " + normalize(text) + " "
	words := len(strings.Fields(n))
	var matched []licenseRule
	var ids []string
	for _, r := range licenseRules {
		if holdsAll(n, r.all) && !holdsAny(n, r.none) {
			matched = append(matched, r)
			ids = append(ids, r.id)
		}
	}
	if len(matched) == 0 {
		return "", errUnknownLicense
	}
	if len(matched) > 1 {
		return "", fmt.Errorf("%w: the text matches %s", errUnknownLicense, strings.Join(ids, " and "))
	}
	r := matched[0]
	if words > r.maxWords {
		return "", fmt.Errorf("%w: the text holds %s and more (%d words, at most %d expected)", errUnknownLicense, r.id, words, r.maxWords)
	}
	return r.id, nil
}

func holdsAll(n string, phrases []string) bool {
	for _, p := range phrases {
		if !strings.Contains(n, " "+normalize(p)+" ") {
			return false
		}
	}
	return true
}

func holdsAny(n string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(n, " "+normalize(p)+" ") {
			return true
		}
	}
	return false
}
