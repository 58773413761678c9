package generator

import (
	"fmt"
	"io/fs"

	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// maxMergeBytes bounds each file that a Merge copy decodes, the file it
// merges and the file it merges into: 1 MiB, the bound of every other YAML
// file the plan decodes (inputs, NamespaceMetadata). Decoding YAML into
// maps takes many times the file's size in memory (sigs.k8s.io/yaml decodes
// YAML, converts it to JSON and decodes that, and encodes the result back
// the same way): merging a 1 MiB file of 110,000 keys into its copy
// allocated 519 MiB in all. The per-file bound of copied files (8 MiB),
// which are only hashed, would be far too much here.
const maxMergeBytes = 1 << 20

// merge merges the YAML file src into old, the file at its destination,
// and puts the result there, as source-watcher's Merge strategy does when
// the destination exists (see mergeYAML). The merged file reports src as
// its source.
func (t *artifactTree) merge(old *artifactFile, fsys fs.FS, src pathpattern.Ref) error {
	base, err := old.content(maxMergeBytes, nil)
	if err != nil {
		return err
	}
	overlay, err := pathpattern.ReadFile(fsys, src.Path, maxMergeBytes)
	if err != nil {
		return err
	}
	merged, err := mergeYAML(base, overlay)
	if err != nil {
		return err
	}
	if int64(len(merged)) > maxArtifactFileBytes {
		return fmt.Errorf("the merged file must be no more than %d bytes", maxArtifactFileBytes)
	}
	return t.put(&artifactFile{dest: old.dest, src: src, data: merged, own: true})
}

// mergeError says which side of a merge is not what Merge can merge.
type mergeError struct {
	overlay bool // the file merged, not the one merged into
	err     error
}

func (e *mergeError) Error() string {
	which := "the file there"
	if e.overlay {
		which = "the file merged"
	}
	return which + " must be YAML whose documents are mappings: " + e.err.Error()
}

func (e *mergeError) Unwrap() error { return e.err }

// mergeYAML returns overlay's YAML merged over base's, byte for byte as
// source-watcher v2.3 writes it: each file's documents are decoded with
// sigs.k8s.io/yaml into maps and merged in order into one; then overlay's
// map is merged over base's, recursively, as Helm merges values files
// (see mergeMaps); and the result is encoded as sigs.k8s.io/yaml encodes
// it, one document, keys sorted, in an order that does not change from run
// to run (encodeMerged). A document that is not a mapping (a list, a
// string) is an error; an empty or null one adds nothing. Decoding is
// sigs.k8s.io/yaml's (not strict: a duplicate key takes its last value;
// numbers pass through float64), which is what upstream decodes with.
//
// Before decoding, yamldoc.Documents bounds alias expansion and refuses a
// document hidden after a "..." end marker, which upstream's decoder would
// drop. Nesting is bounded by the decoders, to 10,000 levels.
func mergeYAML(base, overlay []byte) ([]byte, error) {
	b, err := decodeMergeFile(base)
	if err != nil {
		return nil, &mergeError{err: err}
	}
	o, err := decodeMergeFile(overlay)
	if err != nil {
		return nil, &mergeError{overlay: true, err: err}
	}
	return encodeMerged(mergeMaps(b, o))
}

// decodeMergeFile decodes a file's YAML documents into maps and merges
// them, in order, into one.
func decodeMergeFile(data []byte) (map[string]any, error) {
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for i, doc := range docs {
		if i == 0 {
			doc = yamldoc.Aligned(data, doc) // errors name the file's lines
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			if len(docs) > 1 {
				return nil, fmt.Errorf("document %d: %w", i+1, err)
			}
			return nil, err
		}
		out = mergeMaps(out, m)
	}
	return out, nil
}

// mergeMaps returns overlay merged over base, neither of which it
// changes: a key that both hold as maps is merged recursively; otherwise
// overlay's value wins, lists and nulls included. This is source-watcher's
// merge, which follows Helm's merge of values files (except that a null
// sets the key to null instead of deleting it). Its recursion is as deep
// as the maps, which the decoders bound.
func mergeMaps(base, overlay map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(overlay))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range overlay {
		if om, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}
