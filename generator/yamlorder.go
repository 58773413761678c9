package generator

import (
	"context"
	"encoding/json"
	"slices"
	"unicode"

	yamlv2 "go.yaml.in/yaml/v2"
)

// encodeMerged encodes a merged YAML file as sigs.k8s.io/yaml.Marshal, and so source-watcher,
// does (JSON, then decoded and encoded with yaml/v2), but sorts each mapping's keys here, stably
// from JSON order, by yaml/v2's order (naturalLess). yaml/v2 sorts from Go's random map order,
// and its order is not transitive for some keys mixing digits and letters (8 < 11 < 1A < 8), so
// its output for them changes from run to run; for any other keys the bytes are upstream's.
// Between steps it returns ctx's error once ctx has ended.
func encodeMerged(ctx context.Context, m map[string]any) ([]byte, error) {
	j, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A MapSlice target makes yaml/v2 keep every mapping in document order, with the same scalars
	// and layout as through a map.
	var doc yamlv2.MapSlice
	if err := yamlv2.Unmarshal(j, &doc); err != nil {
		return nil, err
	}
	sortMappings(doc)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return yamlv2.Marshal(doc)
}

// sortMappings orders the keys of every mapping in v by naturalLess, stably from JSON's byte
// order, so that keys it cannot order come out alike.
func sortMappings(v any) {
	switch v := v.(type) {
	case yamlv2.MapSlice:
		slices.SortStableFunc(v, func(a, b yamlv2.MapItem) int {
			as, _ := a.Key.(string)
			bs, _ := b.Key.(string)
			switch {
			case naturalLess(as, bs):
				return -1
			case naturalLess(bs, as):
				return 1
			}
			return 0
		})
		for _, item := range v {
			sortMappings(item.Value)
		}
	case []any:
		for _, e := range v {
			sortMappings(e)
		}
	}
}

// naturalLess reports whether yaml/v2 (go.yaml.in/yaml/v2 v2.4.3, sorter.go) puts the string key
// a before b when it encodes a map: letters after other characters and by code point, runs of
// digits by value. It is that function's branch for two strings, a JSON document's only keys;
// TestNaturalLessAsYAMLv2 and FuzzNaturalLess compare it with yaml/v2.
func naturalLess(a, b string) bool {
	ar, br := []rune(a), []rune(b)
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		al, bl := unicode.IsLetter(ar[i]), unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}

// encodedSizeAtLeast returns a lower bound on the bytes encodeMerged writes for m, or a number
// past limit once it passes it: each key and colon, each list item's "- ", each string's bytes
// and a byte for any other scalar, two for an empty mapping or list, and the indentation of every
// line that starts a key or an item, in yaml/v2's block style (a nested mapping, or a collection
// in a list item, two columns in, its first key or item on the item's line; a list under a key at
// the key's column). "{a: {a: ...}}" nested n deep, 4n bytes, encodes to n² bytes: so a merge
// refuses it before encoding, whose time and memory grow with that square. FuzzMergeYAML checks
// that the bound never passes what encodeMerged writes.
func encodedSizeAtLeast(m map[string]any, limit int64) int64 {
	var n int64
	var value func(v any, indent int64, sameLine bool)
	value = func(v any, indent int64, sameLine bool) {
		switch v := v.(type) {
		case map[string]any:
			if len(v) == 0 {
				n += 2 // {}
			}
			first := true
			for k, e := range v {
				if n > limit {
					return
				}
				n += int64(len(k)) + 1
				if !first || !sameLine {
					n += indent
				}
				first = false
				switch e.(type) {
				case map[string]any:
					value(e, indent+2, false)
				case []any:
					value(e, indent, false)
				default:
					value(e, indent, true)
				}
			}
		case []any:
			if len(v) == 0 {
				n += 2 // []
			}
			for i, e := range v {
				if n > limit {
					return
				}
				n += 2
				if i > 0 || !sameLine {
					n += indent
				}
				value(e, indent+2, true)
			}
		case string:
			n += int64(len(v))
		default:
			n++ // a number, a boolean, null
		}
	}
	value(m, 0, false)
	return n
}
