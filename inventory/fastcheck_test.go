package inventory

import (
	// go-digest validates the sha2 digests only when they are linked in.
	_ "crypto/sha256"
	_ "crypto/sha512"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkFast fails t when isDigest disagrees with the go-digest check it stands for.
func checkFast(t *testing.T, s string) {
	t.Helper()
	agree := func(name string, fast, slow bool) {
		if fast != slow {
			t.Errorf("%s(%q) = %v, apimachinery/go-digest say %v", name, s, fast, slow)
		}
	}
	if a, hex, ok := strings.Cut(s, ":"); ok && a != "sha1" && a != "blake3" {
		// go-digest knows the sha2 algorithms; sha1 and blake3 are checked
		// by TestEntryValidate.
		agree("isDigest", isDigest(digest.Digest(s)), digest.Digest(s).Validate() == nil && hex == strings.ToLower(hex))
	}
}

var fastCorpus = []string{
	"", "a", "A", "0", "-", "a-", "-a", "a-b", "a--b", "a.b", "a..b", ".a", "a.", "a_b",
	"tenant-a", "Tenant-a", "9lives", "v1", "v1beta1", "ExternalArtifact", "Config-Map", "K\u212a",
	"apps", "rbac.authorization.k8s.io", "source.toolkit.fluxcd.io",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253), strings.Repeat("a", 254),
	strings.Repeat("a.", 126) + "a", strings.Repeat("a", 64) + ".b",
	string(digest.FromString("x")), string(validDigests[1]), string(validDigests[2]),
	"sha256:" + strings.Repeat("A", 64), "sha256:" + strings.Repeat("g", 64), "sha256:abc",
	"sha384:" + strings.Repeat("0", 64), "sha512:" + strings.Repeat("0", 96), "md5:" + strings.Repeat("0", 32),
	"sha256:" + strings.Repeat("0", 64) + "\n",
}

func TestFastChecks(t *testing.T) {
	t.Parallel()
	for _, s := range fastCorpus {
		checkFast(t, s)
	}
	// Every single byte, alone, inside a label, and at each of the first and last
	// eight positions of a digest.
	for c := range 256 {
		checkFast(t, string(rune(c)))
		checkFast(t, "a"+string([]byte{byte(c)})+"b")
		for i := range 8 {
			hex := []byte(strings.Repeat("9", 64))
			hex[i] = byte(c)
			checkFast(t, "sha256:"+string(hex))
			hex[i], hex[63-i] = 'a', byte(c)
			checkFast(t, "sha256:"+string(hex))
		}
	}
}

func FuzzFastChecks(f *testing.F) {
	for _, s := range fastCorpus {
		f.Add(s)
	}
	for _, d := range hostileDigests {
		f.Add(string(d))
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFast(t, s)
		e := Entry{APIVersion: s, Kind: s, Namespace: s, Name: s, Digest: digest.Digest(s)}
		for _, e := range []Entry{e, {APIVersion: s, Kind: "Deployment", Name: "a"}, ea(s, s, ""), ea("t", "a", digest.Digest(s)), {Kind: s, Name: "a"}, {Name: "a", Filename: s}, {Kind: "Namespace", Namespace: s, Name: "a"}} {
			// Diff validates with a nil path first, and again with the path for a problem.
			if got, want := len(e.Validate(nil)) == 0, len(e.Validate(field.NewPath("old").Index(1))) == 0; got != want {
				t.Errorf("Validate(nil) of %+v is empty: %v, with a path: %v", e, got, want)
			}
		}
	})
}
