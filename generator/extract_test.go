package generator

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// tarEntry is one entry of a test archive; a zero type is a regular file.
type tarEntry struct {
	name string
	body string
	typ  byte
	link string
	mode int64
	size int64             // the header's size when not len(body)
	pax  map[string]string // PAX records
}

// tgz writes entries as a gzip-compressed tar archive.
func tgz(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: e.mode, Size: int64(len(e.body)), PAXRecords: e.pax}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if e.size != 0 {
			h.Size = e.size
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipped compresses data as it is, a tar archive or not.
func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	if _, err := gz.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// retype sets the type flag of the first header of a tar archive, which
// tar.Writer refuses to write for PAX headers, and its checksum.
func retype(archive []byte, typ byte) []byte {
	hdr := archive[:512]
	hdr[156] = typ
	copy(hdr[148:156], "        ")
	sum := 0
	for _, b := range hdr {
		sum += int(b)
	}
	copy(hdr[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return archive
}

// untarTests are archives with what untar makes of them: the entries in
// order ("d name" for a directory, "name=content" for a file), or the
// archiveError.
type untarTest struct {
	name      string
	archive   func(t testing.TB) []byte
	want      []string
	wantEntry string // the entry the error names
	wantRule  string // a piece of the rule it states
}

func untarTests() []untarTest {
	arch := func(entries ...tarEntry) func(testing.TB) []byte {
		return func(t testing.TB) []byte { return tgz(t, entries...) }
	}
	raw := func(data []byte) func(testing.TB) []byte { return func(testing.TB) []byte { return data } }
	return []untarTest{
		{name: "files and directories", archive: arch(
			tarEntry{name: "config.yaml", body: "a: 1\n"},
			tarEntry{name: "prod/", typ: tar.TypeDir, mode: 0o755},
			tarEntry{name: "prod/config.yaml", body: "b: 2\n"},
		), want: []string{"config.yaml=a: 1\n", "d prod", "prod/config.yaml=b: 2\n"}},
		{name: "names cleaned", archive: arch(
			tarEntry{name: "./", typ: tar.TypeDir},
			tarEntry{name: "./a//b.yaml", body: "x"},
			tarEntry{name: "c/./d/", typ: tar.TypeDir},
		), want: []string{"d .", "a/b.yaml=x", "d c/d"}},
		{name: "an empty file", archive: arch(tarEntry{name: "empty"}), want: []string{"empty="}},
		{name: "no entries", archive: arch(), want: nil},
		{name: "a file again", archive: arch(tarEntry{name: "a", body: "1"}, tarEntry{name: "a", body: "2"}), want: []string{"a=1", "a=2"}},
		{name: "data after the end of the archive is not read", archive: func(t testing.TB) []byte {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			_ = tw.WriteHeader(&tar.Header{Name: "a", Mode: 0o644, Size: 1})
			_, _ = tw.Write([]byte("x"))
			_ = tw.Close()
			buf.WriteString("garbage that is no tar header at all")
			return gzipped(t, buf.Bytes())
		}, want: []string{"a=x"}},
		// As upstream's reader takes them: a regular file's mode bits may
		// make it a directory.
		{name: "a file whose mode says directory", archive: arch(tarEntry{name: "x", mode: 0o40755}), want: []string{"d x"}},

		{name: "not gzip", archive: raw([]byte("this is not a tarball")), wantRule: "must be a gzip-compressed tar archive"},
		{name: "gzip, not tar", archive: func(t testing.TB) []byte { return gzipped(t, bytes.Repeat([]byte("x"), 1024)) },
			wantRule: "must be a gzip-compressed tar archive"},
		{name: "truncated", archive: func(t testing.TB) []byte {
			a := tgz(t, tarEntry{name: "a", body: strings.Repeat("x", 10_000)})
			return a[:len(a)/2]
		}, wantRule: "must be a gzip-compressed tar archive"},
		{name: "absolute", archive: arch(tarEntry{name: "/etc/passwd", body: "x"}), wantEntry: "/etc/passwd", wantRule: "must not be an absolute path"},
		{name: "dot-dot", archive: arch(tarEntry{name: "../escape.yaml", body: "x"}), wantEntry: "../escape.yaml", wantRule: `must not contain a ".." element`},
		{name: "dot-dot inside", archive: arch(tarEntry{name: "a/../../b", body: "x"}), wantEntry: "a/../../b", wantRule: `must not contain a ".." element`},
		{name: "dot-dot at the end", archive: arch(tarEntry{name: "a/..", typ: tar.TypeDir}), wantEntry: "a/..", wantRule: `must not contain a ".." element`},
		{name: "backslash", archive: arch(tarEntry{name: `..\escape`, body: "x"}), wantEntry: `..\escape`, wantRule: `must not contain "\"`},
		// The tar reader refuses a NUL byte in a PAX path; a header's
		// name ends at its first NUL.
		{name: "NUL byte", archive: func(t testing.TB) []byte {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			record := "13 path=a\x00bc\n"
			_ = tw.WriteHeader(&tar.Header{Name: "pax", Mode: 0o644, Size: int64(len(record))})
			_, _ = tw.Write([]byte(record))
			_ = tw.WriteHeader(&tar.Header{Name: "a", Mode: 0o644, Size: 1})
			_, _ = tw.Write([]byte("x"))
			_ = tw.Close()
			return gzipped(t, retype(buf.Bytes(), tar.TypeXHeader))
		},
			wantRule: "must be a gzip-compressed tar archive: archive/tar: invalid tar header"},
		{name: "too long", archive: arch(tarEntry{name: strings.Repeat("a/", 2048) + "b", body: "x"}),
			wantEntry: strings.Repeat("a/", 2048) + "b", wantRule: "must be no more than 4096 bytes"},
		{name: "the root as a file", archive: arch(tarEntry{name: ".", body: "x"}), wantEntry: ".", wantRule: "must name a file below the archive's root"},
		{name: "symbolic link", archive: arch(tarEntry{name: "link", typ: tar.TypeSymlink, link: "/etc/passwd"}),
			wantEntry: "link", wantRule: `must not be a symbolic link (to "/etc/passwd")`},
		{name: "hard link", archive: arch(tarEntry{name: "a", body: "x"}, tarEntry{name: "link", typ: tar.TypeLink, link: "a"}),
			wantEntry: "link", wantRule: `must not be a hard link (to "a")`},
		{name: "character device", archive: arch(tarEntry{name: "null", typ: tar.TypeChar}), wantEntry: "null", wantRule: "not a character device"},
		{name: "block device", archive: arch(tarEntry{name: "sda", typ: tar.TypeBlock}), wantEntry: "sda", wantRule: "not a block device"},
		{name: "FIFO", archive: arch(tarEntry{name: "fifo", typ: tar.TypeFifo}), wantEntry: "fifo", wantRule: "not a FIFO"},
		{name: "a file larger than the file bound", archive: arch(tarEntry{name: "big", body: strings.Repeat("x", maxArtifactFileBytes+1)}),
			wantEntry: "big", wantRule: "must be no more than 8388608 bytes"},
		{name: "files larger than the artifact's bound together", archive: func(t testing.TB) []byte {
			var es []tarEntry
			for i := range maxExtractedBytes/maxArtifactFileBytes + 1 {
				es = append(es, tarEntry{name: fmt.Sprint(i), body: strings.Repeat("x", maxArtifactFileBytes)})
			}
			return tgz(t, es...)
		}, wantEntry: fmt.Sprint(maxExtractedBytes / maxArtifactFileBytes), wantRule: "must hold no more than 67108864 bytes of files in all"},
		{name: "too many entries", archive: func(t testing.TB) []byte {
			es := make([]tarEntry, maxArchiveEntries+1)
			for i := range es {
				es[i] = tarEntry{name: fmt.Sprint("d", i), typ: tar.TypeDir}
			}
			return tgz(t, es...)
		}, wantEntry: fmt.Sprint("d", maxArchiveEntries), wantRule: "must hold no more than 10000 entries in all"},
		// A gzip bomb that holds no file: PAX records, which the tar
		// reader decodes and discards, of 1 MiB each.
		{name: "decompresses past the bound", archive: func(t testing.TB) []byte {
			pax := map[string]string{"comment": strings.Repeat("x", 1<<20-64)}
			var es []tarEntry
			for i := range maxDecompressedBytes>>20 + 1 {
				es = append(es, tarEntry{name: fmt.Sprint("d", i), typ: tar.TypeDir, pax: pax})
			}
			return tgz(t, es...)
		}, wantRule: "must decompress to no more than 83886080 bytes in all"},
	}
}

func TestUntar(t *testing.T) {
	t.Parallel()
	for _, tt := range untarTests() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			err := untar(context.Background(), tt.archive(t), newArtifactTree(), func(e archiveEntry) error {
				if e.dir {
					got = append(got, "d "+e.name)
				} else {
					got = append(got, e.name+"="+string(e.data))
				}
				return nil
			})
			if tt.wantRule == "" {
				if err != nil {
					t.Fatalf("untar() error = %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("entries (-want +got):\n%s", diff)
				}
				return
			}
			var ae *archiveError
			if !errors.As(err, &ae) || ae.entry != tt.wantEntry || !strings.Contains(ae.Error(), tt.wantRule) {
				t.Fatalf("untar() = %v; want an archiveError of entry %q saying %q", err, tt.wantEntry, tt.wantRule)
			}
		})
	}
}

// FuzzUntar reads arbitrary bytes as an archive, and arbitrary archives of
// one entry: nothing panics, every error is an archiveError, and what is
// read stays within the bounds.
func FuzzUntar(f *testing.F) {
	for _, tt := range untarTests() {
		switch tt.name { // the large ones take seconds each
		case "a file larger than the file bound", "files larger than the artifact's bound together", "too many entries", "decompresses past the bound":
			continue
		}
		f.Add(tt.archive(f), "", byte(0), "")
	}
	f.Add([]byte(nil), "a/b.yaml", byte(tar.TypeReg), "a: 1\n")
	f.Add([]byte(nil), "../x", byte(tar.TypeSymlink), "")
	f.Fuzz(func(t *testing.T, data []byte, name string, typ byte, body string) {
		if len(data) == 0 {
			var buf bytes.Buffer
			gz := gzip.NewWriter(&buf)
			tw := tar.NewWriter(gz)
			if tw.WriteHeader(&tar.Header{Name: name, Typeflag: typ, Mode: 0o644, Size: int64(len(body))}) == nil {
				_, _ = tw.Write([]byte(body))
			}
			_ = tw.Close()
			_ = gz.Close()
			data = buf.Bytes()
		}
		tr := newArtifactTree()
		var files int64
		err := untar(context.Background(), data, tr, func(e archiveEntry) error {
			if e.name == "" || strings.HasPrefix(e.name, "/") || strings.Contains(e.name, "..") && strings.Contains("/"+e.name+"/", "/../") {
				t.Fatalf("entry %q passed", e.name)
			}
			files += int64(len(e.data))
			return nil
		})
		var ae *archiveError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("untar() error %T: %v", err, err)
		}
		if files > maxExtractedBytes || tr.decompressed > maxDecompressedBytes || tr.entries > maxArchiveEntries+1 {
			t.Fatalf("read %d bytes of files, %d decompressed, %d entries", files, tr.decompressed, tr.entries)
		}
	})
}

// Upstream's test archives (internal/builder/extract_test.go).
const (
	upstreamConfig     = "\nname: app\nports: [8080]\nlabels:\n  env: dev\n  keep: me\nversion: 1.0.1\nreplicas: 2\nenv: development\n"
	upstreamProdConfig = "\nname: app\nports: [8081]\nlabels:\n  env: prod\n  keep: me\nversion: 1.0.0\nreplicas: 5\nenv: production\n"
	upstreamIntConfig  = "\nname: app\nports: [8082]\nlabels:\n  env: int\n  keep: me\nversion: 1.0.0\nreplicas: 3\nenv: int\n"
)

// upstreamTarball is createTestTarball's archive; upstreamIntTarball
// createTestTarballForInt's.
func upstreamTarball(t testing.TB) []byte {
	return tgz(t, tarEntry{name: "config.yaml", body: upstreamConfig},
		tarEntry{name: "prod/", typ: tar.TypeDir, mode: 0o755},
		tarEntry{name: "prod/config.yaml", body: upstreamProdConfig})
}

func upstreamIntTarball(t testing.TB) []byte {
	return tgz(t, tarEntry{name: "int/", typ: tar.TypeDir, mode: 0o755},
		tarEntry{name: "int/config.yaml", body: upstreamIntConfig})
}

// TestUpstreamExtractStrategy translates source-watcher's
// TestBuild_ExtractStrategy and
// TestBuild_ExtractStrategyRejectsDestinationTraversal
// (internal/builder/extract_test.go) into plans, with the exact files they
// produce, and adds the hostile archives, each an error of the artifact
// naming the archive, the entry and the rule.
func TestUpstreamExtractStrategy(t *testing.T) {
	t.Parallel()
	file := func(b []byte) *fstest.MapFile { return &fstest.MapFile{Data: b} }
	text := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	main, intA := upstreamTarball(t), upstreamIntTarball(t)
	extract := func(from, to string) CopyOperation { return CopyOperation{From: from, To: to, Strategy: "Extract"} }
	both := map[string]string{"config.yaml": upstreamConfig, "prod/config.yaml": upstreamProdConfig}
	errAt := func(value, detail string) []copyErr {
		return []copyErr{{Field: "spec.artifacts[0].copy[0].from", Type: field.ErrorTypeInvalid, Value: value, Detail: detail}}
	}
	tests := []copyCase{
		{
			name:    "Extract single referenced archive successfully",
			sources: map[string]fstest.MapFS{"source": {"manifests.tgz": file(main)}},
			copies:  []CopyOperation{extract("@source/manifests.tgz", "@artifact/manifests")},
			want:    map[string]string{"manifests/config.yaml": upstreamConfig, "manifests/prod/config.yaml": upstreamProdConfig},
			wantSource: map[string]string{
				"manifests/config.yaml": "@source/manifests.tgz", "manifests/prod/config.yaml": "@source/manifests.tgz",
			},
		},
		{
			name:    "Extract multiple referenced archives using same source pattern",
			sources: map[string]fstest.MapFS{"source": {"manifests1.tgz": file(main), "manifests2.tgz": file(intA)}},
			copies:  []CopyOperation{extract("@source/*.tg*", "@artifact/")},
			want:    map[string]string{"config.yaml": upstreamConfig, "prod/config.yaml": upstreamProdConfig, "int/config.yaml": upstreamIntConfig},
		},
		{
			name:    "Extract multiple referenced archives using recursive glob pattent matching",
			sources: map[string]fstest.MapFS{"source": {"prod/manifests.tgz": file(main), "int/manifests.tgz": file(intA)}},
			copies:  []CopyOperation{extract("@source/**", "@artifact/")},
			want:    map[string]string{"config.yaml": upstreamConfig, "prod/config.yaml": upstreamProdConfig, "int/config.yaml": upstreamIntConfig},
		},
		{
			name:     "Extract with invalid tarball fails gracefully",
			sources:  map[string]fstest.MapFS{"source": {"invalid.tgz": text("this is not a tarball")}},
			copies:   []CopyOperation{extract("@source/invalid.tgz", "@artifact/")},
			wantErrs: errAt("@source/invalid.tgz", "must be a gzip-compressed tar archive"),
		},
		{
			name:    "Extract to subdirectory",
			sources: map[string]fstest.MapFS{"source": {"manifests.tgz": file(main)}},
			copies:  []CopyOperation{extract("@source/manifests.tgz", "@artifact/extracted/configs/")},
			want:    map[string]string{"extracted/configs/config.yaml": upstreamConfig, "extracted/configs/prod/config.yaml": upstreamProdConfig},
		},
		{
			name:    "Extract with .tar.gz extension",
			sources: map[string]fstest.MapFS{"source": {"manifests.tar.gz": file(main)}},
			copies:  []CopyOperation{extract("@source/manifests.tar.gz", "@artifact/")},
			want:    both,
		},
		{
			name:    "Extract with exclude patterns",
			sources: map[string]fstest.MapFS{"source": {"app.tgz": file(main), "int.tgz": file(intA)}},
			copies:  []CopyOperation{{From: "@source/*.tgz", To: "@artifact/", Strategy: "Extract", Exclude: []string{"int.tgz"}}},
			want:    both,
		},
		{
			name:     "Extract pattern matches no tarballs",
			sources:  map[string]fstest.MapFS{"source": {"config.yaml": text("key: value")}},
			copies:   []CopyOperation{extract("@source/*.tgz", "@artifact/")},
			wantErrs: errAt("@source/*.tgz", "selects no file"),
		},
		{
			name: "Extract overwrites existing files from previous extract",
			sources: map[string]fstest.MapFS{"source": {
				"first.tgz":  file(tgz(t, tarEntry{name: "config.yaml", body: "\nname: first-app\nversion: 1.0.0\nenv: first\n"})),
				"second.tgz": file(tgz(t, tarEntry{name: "config.yaml", body: "\nname: second-app\nversion: 2.0.0\nenv: second\n"})),
			}},
			copies:     []CopyOperation{extract("@source/first.tgz", "@artifact/"), extract("@source/second.tgz", "@artifact/")},
			want:       map[string]string{"config.yaml": "\nname: second-app\nversion: 2.0.0\nenv: second\n"},
			wantSource: map[string]string{"config.yaml": "@source/second.tgz"},
		},
		{
			name:    "Extract skips non-tarball files in glob pattern",
			sources: map[string]fstest.MapFS{"source": {"readme.txt": text("This is a readme"), "archive.tgz": file(main)}},
			copies:  []CopyOperation{extract("@source/*", "@artifact/")},
			want:    both,
		},
		{
			name:     "Extract strategy fails for directory source",
			sources:  map[string]fstest.MapFS{"source": {"manifests/config.yaml": text("key: value")}},
			copies:   []CopyOperation{extract("@source/manifests", "@artifact/")},
			wantErrs: errAt("@source/manifests", "the Extract strategy does not support directories"),
		},
		{
			name:     "Extract single file requires tarball extension",
			sources:  map[string]fstest.MapFS{"source": {"config.yaml": text("key: value")}},
			copies:   []CopyOperation{extract("@source/config.yaml", "@artifact/")},
			wantErrs: errAt("@source/config.yaml", "the Extract strategy requires a tarball (.tar.gz or .tgz)"),
		},

		// Beyond upstream's tests.
		{
			name:    "a tarball's extension in any case",
			sources: map[string]fstest.MapFS{"source": {"A.TGZ": file(main)}},
			copies:  []CopyOperation{extract("@source/A.TGZ", "@artifact/")},
			want:    both,
		},
		{
			name:    "a glob skips the tarballs below a directory it matches",
			sources: map[string]fstest.MapFS{"source": {"a.tgz": file(intA), "sub/b.tgz": file(main)}},
			copies:  []CopyOperation{extract("@source/*", "@artifact/")},
			want:    map[string]string{"int/config.yaml": upstreamIntConfig},
		},
		{
			name:    "an optional extract that selects nothing",
			sources: map[string]fstest.MapFS{"source": {"a.yaml": text("a")}},
			copies:  []CopyOperation{{From: "@source/a.yaml", To: "@artifact/"}, {From: "@source/*.tgz", To: "@artifact/", Strategy: "Extract", Optional: true}},
			want:    map[string]string{"a.yaml": "a"},
		},
		{
			name:    "a merge into an extracted file",
			sources: map[string]fstest.MapFS{"source": {"chart.tgz": file(main), "values.yaml": text("replicas: 9\n")}},
			copies:  []CopyOperation{extract("@source/chart.tgz", "@artifact/"), {From: "@source/values.yaml", To: "@artifact/config.yaml", Strategy: "Merge"}},
			want: map[string]string{
				"config.yaml":      "env: development\nlabels:\n  env: dev\n  keep: me\nname: app\nports:\n- 8080\nreplicas: 9\nversion: 1.0.1\n",
				"prod/config.yaml": upstreamProdConfig,
			},
			wantSource: map[string]string{"config.yaml": "@source/values.yaml", "prod/config.yaml": "@source/chart.tgz"},
		},
		{
			name:    "an extracted file replaces a copied one",
			sources: map[string]fstest.MapFS{"source": {"config.yaml": text("old"), "chart.tgz": file(main)}},
			copies:  []CopyOperation{{From: "@source/config.yaml", To: "@artifact/"}, extract("@source/chart.tgz", "@artifact/")},
			want:    both,
		},
		{
			name:     "an archive file where a copied file is a directory",
			sources:  map[string]fstest.MapFS{"source": {"prod": text("file"), "chart.tgz": file(main)}},
			copies:   []CopyOperation{extract("@source/chart.tgz", "@artifact/"), {From: "@source/prod", To: "@artifact/"}},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@source/prod", Detail: `"prod" is a directory of the artifact`}},
		},
		{
			name:     "an archive directory where a copied file is",
			sources:  map[string]fstest.MapFS{"source": {"prod": text("file"), "chart.tgz": file(main)}},
			copies:   []CopyOperation{{From: "@source/prod", To: "@artifact/"}, extract("@source/chart.tgz", "@artifact/")},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@source/chart.tgz", Detail: `entry "prod/": "prod" is a file of the artifact`}},
		},
		{
			name:     "extracting into a file",
			sources:  map[string]fstest.MapFS{"source": {"x": text("file"), "chart.tgz": file(main)}},
			copies:   []CopyOperation{{From: "@source/x", To: "@artifact/"}, extract("@source/chart.tgz", "@artifact/x")},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@source/chart.tgz", Detail: `cannot extract into "x": "x" is a file of the artifact`}},
		},
		{
			name:     "a file and a directory of one name in an archive",
			sources:  map[string]fstest.MapFS{"source": {"a.tgz": file(tgz(t, tarEntry{name: "a", body: "x"}, tarEntry{name: "a/b", body: "y"}))}},
			copies:   []CopyOperation{extract("@source/a.tgz", "@artifact/")},
			wantErrs: errAt("@source/a.tgz", `entry "a/b": "a" is a file of the artifact, not a directory`),
		},
		{
			name:     "a symbolic link",
			sources:  map[string]fstest.MapFS{"source": {"a.tgz": file(tgz(t, tarEntry{name: "etc", typ: tar.TypeSymlink, link: "/etc"}))}},
			copies:   []CopyOperation{extract("@source/a.tgz", "@artifact/")},
			wantErrs: errAt("@source/a.tgz", `entry "etc": must not be a symbolic link (to "/etc")`),
		},
		{
			name:     "a path traversal",
			sources:  map[string]fstest.MapFS{"source": {"a.tgz": file(tgz(t, tarEntry{name: "../../escape.yaml", body: "x"}))}},
			copies:   []CopyOperation{extract("@source/a.tgz", "@artifact/sub/")},
			wantErrs: errAt("@source/a.tgz", `entry "../../escape.yaml": must not contain a ".." element`),
		},
		{
			name:     "an archive larger than the file bound",
			sources:  map[string]fstest.MapFS{"source": {"a.tgz": {Data: make([]byte, maxArtifactFileBytes+1)}}},
			copies:   []CopyOperation{extract("@source/a.tgz", "@artifact/")},
			wantErrs: errAt("@source/a.tgz", "must be no more than 8388608 bytes"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runCopyCase(t, tt, copySpec(tt))
		})
	}
}

// TestExtractDestinationTraversal translates source-watcher's
// TestBuild_ExtractStrategyRejectsDestinationTraversal: a to that leaves
// the artifact is refused, here by Compile.
func TestExtractDestinationTraversal(t *testing.T) {
	t.Parallel()
	spec := copySpec(copyCase{sources: map[string]fstest.MapFS{"source": nil},
		copies: []CopyOperation{{From: "@source/manifests.tgz", To: "@artifact/../../escape", Strategy: "Extract"}}})
	_, errs := Compile(spec, WithNamespace("flux-system"))
	if len(errs) != 1 || errs[0].Field != "spec.artifacts[0].copy[0].to" || errs[0].Type != field.ErrorTypeInvalid {
		t.Errorf("Compile() errors = %v, want one at spec.artifacts[0].copy[0].to", errs)
	}
}
