package inventory

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/hostile"
)

var hex64 = strings.Repeat("0123456789abcdef", 4)

// hostileDigests are digests that must be refused, each naming the field
// and the value.
var hostileDigests = []digest.Digest{
	"sha256:abc",
	"sha256:" + digest.Digest(strings.ToUpper(hex64)),
	"sha256:" + digest.Digest(hex64) + "\n",
	" sha256:" + digest.Digest(hex64),
	"sha256:" + digest.Digest(hex64[:63]) + "g",
	"sha256:" + digest.Digest(hex64[:63]) + "\x00",
	"sha256:" + digest.Digest(hex64[:60]) + "\uff10\uff10", // full-width digits
	"sha256:" + digest.Digest(hex64+hex64),                 // sha512's length
	"sha512:" + digest.Digest(hex64),                       // sha256's length
	"sha1:" + digest.Digest(hex64),                         // sha256's length
	"blake3:" + digest.Digest(hex64[:40]),                  // sha1's length
	"blake3:" + digest.Digest(hex64+hex64),                 // sha512's length
	"SHA256:" + digest.Digest(hex64),
	"sha256" + digest.Digest(hex64),
	"sha256::" + digest.Digest(hex64),
	"md5:" + digest.Digest(hex64[:32]),
	"sha256+b64u:LCa0a2j_xo_5m0U8HTBBNBNCLXBkg7-g-YpeiGJm564",
	":",
	digest.Digest(strings.Repeat("sha256:", 10000)),
}

func TestHostileDigests(t *testing.T) {
	t.Parallel()
	for i, d := range hostileDigests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				_, errs := Diff(nil, []Entry{ea("tenant-a", "app", dg("ok")), ea("tenant-a", "web", d)})
				if len(errs) != 1 || errs[0].Field != "desired[1].digest" || errs[0].BadValue != string(d) ||
					!strings.Contains(errs[0].Detail, "must be ") {
					t.Errorf("errors = %v, want one Invalid at desired[1].digest naming the value", errs)
				}
			})
		})
	}
}

func TestHostileEntries(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 253)
	for _, tt := range []struct {
		name  string
		entry Entry
		want  []fieldErr // nil: valid
	}{
		{name: "name of 253 bytes", entry: ea("tenant-a", long, "")},
		{name: "name of 254 bytes", entry: ea("tenant-a", long+"a", ""), want: []fieldErr{{"desired[0].name", field.ErrorTypeTooLong}}},
		{name: "1 MiB name", entry: ea("tenant-a", strings.Repeat("a", 1<<20), ""), want: []fieldErr{{"desired[0].name", field.ErrorTypeTooLong}}},
		{name: "dot dot name", entry: ea("tenant-a", "..", ""), want: []fieldErr{{"desired[0].name", field.ErrorTypeInvalid}}},
		{name: "slash in a name", entry: ea("tenant-a", "a/../b", ""), want: []fieldErr{{"desired[0].name", field.ErrorTypeInvalid}}},
		{name: "percent in a name", entry: ea("tenant-a", "a%2fb", ""), want: []fieldErr{{"desired[0].name", field.ErrorTypeInvalid}}},
		// A name is a path segment, as Kubernetes requires of every name:
		// newlines and NUL bytes pass; what names them must quote them.
		{name: "newline in a name", entry: ea("tenant-a", "app\nExternalArtifact forged deleted", "")},
		{name: "Kelvin sign in a kind", entry: Entry{APIVersion: "v1", Kind: "Con\u212aig", Name: "a"},
			want: []fieldErr{{"desired[0].kind", field.ErrorTypeInvalid}}},
		{name: "dotted capital I in a namespace", entry: ea("tenant-\u0130", "app", ""), want: []fieldErr{{"desired[0].namespace", field.ErrorTypeInvalid}}},
		{name: "upper-case namespace", entry: ea("Tenant-A", "app", ""), want: []fieldErr{{"desired[0].namespace", field.ErrorTypeInvalid}}},
		{name: "namespace of 64 bytes", entry: ea(strings.Repeat("n", 64), "app", ""), want: []fieldErr{{"desired[0].namespace", field.ErrorTypeInvalid}}},
		{name: "namespaced Namespace", entry: Entry{Kind: "Namespace", Namespace: "x", Name: "a"}, want: []fieldErr{{"desired[0].namespace", field.ErrorTypeForbidden}}},
		{name: "kind of 64 bytes", entry: Entry{APIVersion: "v1", Kind: "K" + strings.Repeat("k", 63), Name: "a"},
			want: []fieldErr{{"desired[0].kind", field.ErrorTypeInvalid}}},
		{name: "empty group", entry: Entry{APIVersion: "/v1", Kind: "ConfigMap", Name: "a"}, want: []fieldErr{{"desired[0].apiVersion", field.ErrorTypeInvalid}}},
		{name: "two slashes", entry: Entry{APIVersion: "a/b/v1", Kind: "ConfigMap", Name: "a"}, want: []fieldErr{{"desired[0].apiVersion", field.ErrorTypeInvalid}}},
		{name: "missing apiVersion", entry: Entry{Kind: "ConfigMap", Name: "a"}, want: []fieldErr{{"desired[0].apiVersion", field.ErrorTypeRequired}}},
		{name: "filename of 4097 bytes", entry: Entry{Kind: "Namespace", Name: "a", Filename: strings.Repeat("f", 4097)},
			want: []fieldErr{{"desired[0].filename", field.ErrorTypeTooLong}}},
		{name: "everything wrong at once", entry: Entry{APIVersion: "A/B", Kind: "-", Namespace: "_", Name: "", Digest: "x"},
			want: []fieldErr{
				{"desired[0].apiVersion", field.ErrorTypeInvalid}, {"desired[0].apiVersion", field.ErrorTypeInvalid},
				{"desired[0].kind", field.ErrorTypeInvalid}, {"desired[0].namespace", field.ErrorTypeInvalid},
				{"desired[0].name", field.ErrorTypeRequired}, {"desired[0].digest", field.ErrorTypeInvalid},
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				ch, errs := Diff(nil, []Entry{tt.entry})
				if tt.want == nil {
					if errs != nil || len(ch.Create) != 1 {
						t.Fatalf("Diff() = %v, %v; want one create", ch, errs)
					}
					if line := (Decision{Entry: tt.entry, Action: Create}).String(); strings.Count(line, "\n") != strings.Count(tt.entry.Name, "\n") {
						t.Errorf("change line %q", line)
					}
					return
				}
				if diff := fmt.Sprint(reduce(errs)); diff != fmt.Sprint(tt.want) {
					t.Errorf("errors = %s, want %v", diff, tt.want)
				}
			})
		})
	}
}

func TestHostileDuplicates(t *testing.T) {
	t.Parallel()
	cm := func(apiVersion, name string) Entry {
		return Entry{APIVersion: apiVersion, Kind: "ConfigMap", Namespace: "tenant-a", Name: name}
	}
	for _, tt := range []struct {
		name         string
		old, desired []Entry
		want         []string // fields of the duplicates
		id           string   // the id the first duplicate names
	}{
		{name: "same object at two versions", desired: []Entry{cm("v1", "a"), cm("v2", "a")}, want: []string{"desired[1]"}, id: "ConfigMap/tenant-a/a"},
		{name: "empty kind and ExternalArtifact", desired: []Entry{{Namespace: "tenant-a", Name: "app"}, {APIVersion: "source.toolkit.fluxcd.io/v1", Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app"}},
			want: []string{"desired[1]"}, id: "ExternalArtifact/tenant-a/app"},
		{name: "empty and explicit Namespace version", old: []Entry{{Kind: "Namespace", Name: "a"}, {APIVersion: "v1", Kind: "Namespace", Name: "a"}},
			want: []string{"old[1]"}, id: "Namespace/a"},
		{name: "three times, unsorted", desired: []Entry{cm("v1", "b"), cm("v1", "a"), cm("v1", "b"), cm("v1", "b")},
			want: []string{"desired[2]", "desired[3]"}, id: "ConfigMap/tenant-a/b"},
		{name: "in both lists", old: []Entry{cm("v1", "a"), cm("v1", "a")}, desired: []Entry{cm("v1", "a"), cm("v1", "a")},
			want: []string{"old[1]", "desired[1]"}, id: "ConfigMap/tenant-a/a"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				_, errs := Diff(tt.old, tt.desired)
				var got []string
				for _, e := range errs {
					if e.Type != field.ErrorTypeDuplicate {
						t.Errorf("unexpected error %v", e)
					}
					got = append(got, e.Field)
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.want) || errs[0].BadValue != tt.id {
					t.Errorf("duplicates at %v naming %v, want %v naming %q", got, errs[0].BadValue, tt.want, tt.id)
				}
				// Collect refuses them too, and keeps every stale entry.
				stale := []Entry{nsEntry("gone", "")}
				ds, err := Collect(context.Background(), Changes{Stale: stale, Unchanged: append(tt.old, tt.desired...)})
				if err == nil || len(ds) != 1 || ds[0].Action != Keep {
					t.Errorf("Collect() = %v, %v; want Keep and an error", ds, err)
				}
				for _, e := range fieldErrors(t, err) {
					if e.Type != field.ErrorTypeDuplicate {
						t.Errorf("Collect() error %v, want only duplicates", e)
					}
				}
			})
		})
	}
}

// fakeDigest returns a valid sha256 digest for i, without hashing.
func fakeDigest(i int) digest.Digest {
	h := strconv.FormatUint(uint64(i), 16)
	return digest.Digest("sha256:" + hex64[:64-len(h)] + h)
}

// bigInventory returns n ExternalArtifacts in n/100 namespaces, with their
// Namespaces, shuffled by seed (0: in apply order).
func bigInventory(n int, seed uint64) []Entry {
	namespaces := make([]string, n/100)
	entries := make([]Entry, 0, n+n/100)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("tenant-%04d", i)
		entries = append(entries, nsEntry(namespaces[i], fakeDigest(n+i)))
	}
	name := []byte("app-")
	for i := range n {
		name = strconv.AppendInt(name[:4], int64(1_000_000+i), 10)
		entries = append(entries, ea(namespaces[i%len(namespaces)], string(name), fakeDigest(i)))
	}
	if seed == 0 {
		SortApply(entries)
	} else {
		r := rand.New(rand.NewPCG(seed, seed))
		r.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	}
	return entries
}

// raceEnabled reports whether the test binary was built with -race, which
// makes these lists many times slower to build and compare.
func raceEnabled() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

func TestHostile100kEntries(t *testing.T) {
	t.Parallel()
	n := 100_000
	if raceEnabled() {
		n = 20_000 // under the race detector 100,000 take seven seconds
	}
	old := bigInventory(n, 0)
	desired := bigInventory(n, 1)
	// Change a tenth of the digests, drop a tenth of the artifacts and
	// every Namespace of the last ten tenants, add a tenth.
	var next []Entry
	for _, e := range desired {
		switch {
		case e.Kind == "Namespace" && e.Name >= fmt.Sprintf("tenant-%04d", n/100-10):
		case e.Kind == "ExternalArtifact" && e.Name[len(e.Name)-1] == '3':
		case e.Kind == "ExternalArtifact" && e.Name[len(e.Name)-1] == '7':
			e.Digest = fakeDigest(2*n + len(next))
			next = append(next, e)
		default:
			next = append(next, e)
		}
	}
	for i := range n / 10 {
		next = append(next, ea("tenant-0000", fmt.Sprintf("new-%06d", i), fakeDigest(i)))
	}
	ch, errs := Diff(old, next)
	if errs != nil {
		t.Fatal(errs)
	}
	if len(ch.Create) != n/10 || len(ch.Update) != n/10 || len(ch.Stale) != n/10+10 || len(ch.Unchanged) != n-2*n/10+n/100-10 {
		t.Errorf("Diff() = %d create, %d update, %d unchanged, %d stale", len(ch.Create), len(ch.Update), len(ch.Unchanged), len(ch.Stale))
	}
	// The stale Namespaces that still hold desired artifacts are kept; that
	// of tenant-0993, whose artifacts all end in 3, is deleted.
	ds, err := Collect(context.Background(), ch, WithNamespacePrune())
	if err != nil {
		t.Fatal(err)
	}
	s := countActions(ds)
	if s[Delete] != n/10+1 || s[Keep] != 9 {
		t.Errorf("Collect() = %+v, want %d deletions and 9 kept Namespaces", s, n/10+1)
	}
	// Nothing is lost: a failed deletion stays tracked.
	if got := Next(next, ds, func(Entry) bool { return false }); len(got) != len(next)+len(ch.Stale) {
		t.Errorf("Next() = %d entries, want %d", len(got), len(next)+len(ch.Stale))
	}
	// The deletion guard refuses the whole pass.
	ds, err = Collect(context.Background(), ch, WithNamespacePrune(), WithMaxDeletions(100))
	if s := countActions(ds); !errors.Is(err, ErrDeletionRefused) || s[Delete] != 0 || s[Keep] != len(ch.Stale) || !strings.Contains(ds[0].Reason, "more than the maximum of 100") {
		t.Errorf("Collect(WithMaxDeletions(100)) = %+v, %v", s, err)
	}
	ds, err = Collect(context.Background(), Changes{Stale: ch.Stale}, WithNamespacePrune())
	if s := countActions(ds); !errors.Is(err, ErrDeletionRefused) || s[Delete] != 0 || s[Keep] != len(ch.Stale) {
		t.Errorf("Collect(nothing desired) = %+v, %v", s, err)
	}

	// One duplicate and one malformed digest among 100,000 shuffled entries
	// are each reported once, at their index.
	bad := bigInventory(n, 2)
	bad = append(bad, bad[n/2])
	bad[n/3].Digest = "sha256:" + digest.Digest(hex64[:63]) + "G"
	_, errs = Diff(nil, bad)
	if len(errs) != 2 ||
		errs[0].Field != fmt.Sprintf("desired[%d].digest", n/3) || errs[1].Field != fmt.Sprintf("desired[%d]", len(bad)-1) {
		t.Errorf("Diff() errors = %v", errs)
	}
}

var hostileUnmarshalTests = []struct {
	name   string
	in     string
	is     error
	fields bool // invalid entries: a field.ErrorList
	detail string
	want   int // entries, when no error
}{
	{name: "one byte over the limit", in: "[" + strings.Repeat(" ", maxDocumentBytes-1) + "]", is: ErrTooLarge, detail: "8388609 bytes"},
	{name: "billion laughs", in: "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\nentries: [*h]\n", is: ErrMalformed, detail: "YAML aliases must expand"},
	{name: "YAML nested 10,001 deep", in: "entries: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001), is: ErrMalformed, detail: "max depth"},
	{name: "JSON nested 100,000 deep", in: strings.Repeat("[", 100000) + strings.Repeat("]", 100000), is: ErrMalformed},
	{name: "duplicate YAML key", in: "- kind: Namespace\n  name: a\n  name: b\n", is: ErrMalformed, detail: `"name" already set`},
	{name: "two YAML documents", in: "- {kind: Namespace, name: a}\n---\n- {kind: Namespace, name: b}\n", is: ErrMalformed, detail: "one YAML document"},
	{name: "two documents split by an end marker", in: "- {kind: Namespace, name: a}\n...\n- {kind: Namespace, name: b}\n", is: ErrMalformed, detail: "one YAML document"},
	{name: "a second document that is a mapping", in: "status:\n  inventory: []\n---\nentries: []\n", is: ErrMalformed, detail: "one YAML document"},
	{name: "a second document that is invalid", in: "- {kind: Namespace, name: a}\n---\n- [\n", is: ErrMalformed},
	{name: "stray separators around one document", in: "---\n- {kind: Namespace, name: a}\n---\n", want: 1},
	{name: "raw NUL byte", in: "- kind: Namespace\n  name: a\x00\n", is: ErrMalformed},
	{name: "escaped NUL in a name", in: `[{"kind":"Namespace","name":"a\u0000b"}]`, want: 1},
	{name: "NUL in a digest", in: `[{"kind":"Namespace","name":"a","digest":"sha256:` + hex64[:63] + `\u0000"}]`, fields: true, detail: `\x00`},
	{name: "invalid UTF-8 in YAML", in: "- kind: Namespace\n  name: a\xff\n", is: ErrMalformed},
	{name: "a number", in: "42", is: ErrMalformed, detail: "not a number"},
	{name: "a string", in: `"[]"`, is: ErrMalformed, detail: "not a string"},
	{name: "a boolean", in: "true", is: ErrMalformed, detail: "not a boolean"},
	{name: "entries of the wrong type", in: `{"entries":{}}`, is: ErrMalformed},
	{name: "100,000 underscores as an id", in: `{"entries":[{"id":"` + strings.Repeat("_", 100000) + `","v":"v1"}]}`, fields: true},
	// The message names ten and counts the rest; no more are kept.
	{name: "100,000 elements of the wrong type", in: "[" + strings.Repeat("1,", 100_000-1) + "1]", is: ErrMalformed,
		detail: "[9]: must be an inventory entry, a mapping, found a number; and 99990 more"},
	{name: "Kelvin sign in a kind", in: `[{"apiVersion":"v1","kind":"\u212aind","name":"a"}]`, fields: true, detail: "must be ASCII"},
}

func TestHostileUnmarshal(t *testing.T) {
	t.Parallel()
	for _, tt := range hostileUnmarshalTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				got, err := Unmarshal([]byte(tt.in))
				if tt.fields {
					fieldErrors(t, err)
					if got != nil || !strings.Contains(err.Error(), tt.detail) {
						t.Errorf("Unmarshal() = %v, %.300q; want no entries and an error containing %q", got, err, tt.detail)
					}
					return
				}
				if tt.is == nil {
					if err != nil || len(got) != tt.want {
						t.Fatalf("Unmarshal() = %d entries, %.300v; want %d", len(got), err, tt.want)
					}
					return
				}
				if got != nil || !errors.Is(err, tt.is) {
					t.Fatalf("Unmarshal() = %v, %.300v; want %v", got, err, tt.is)
				}
				if !strings.Contains(err.Error(), tt.detail) {
					t.Errorf("error %.300q does not contain %q", err, tt.detail)
				}
			})
		})
	}
}

func TestHostileParseID(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "_", "__", "___", "____", strings.Repeat("_", 100000), "a_b_c_D\n", "a_b_c_D\x00", "\xff_a__Namespace",
		"_a_b_\u212aind", "tenant-\u0130_a__Namespace", "_" + strings.Repeat("a", 254) + "__Namespace",
		"_a_" + strings.Repeat("g", 254) + "_Kind", "ns_a_b_" + strings.Repeat("K", 64),
		"ns_" + strings.Repeat("a__", 1000) + "_g_Kind",
	} {
		hostile.NoPanic(t, func() {
			id, err := ParseID(s)
			if id != (ID{}) || !errors.Is(err, ErrInvalidID) {
				t.Errorf("ParseID(%.40q) = %v, %v; want ErrInvalidID", s, id, err)
			}
		})
	}
}

// countActions counts decisions by action.
func countActions(ds []Decision) map[Action]int {
	n := map[Action]int{}
	for _, d := range ds {
		n[d.Action]++
	}
	return n
}
