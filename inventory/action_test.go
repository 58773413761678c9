package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		action Action
		str    string
		verb   string
	}{
		{name: "create", action: Create, str: "create", verb: "created"},
		{name: "update", action: Update, str: "update", verb: "configured"},
		{name: "unchanged", action: Unchanged, str: "unchanged", verb: "unchanged"},
		{name: "delete", action: Delete, str: "delete", verb: "deleted"},
		{name: "release", action: Release, str: "release", verb: "released"},
		{name: "keep", action: Keep, str: "keep", verb: "kept"},
		{name: "skip", action: Skip, str: "skip", verb: "skipped"},
		{name: "zero", action: 0, str: "Action(0)", verb: ""},
		{name: "out of range", action: Skip + 1, str: "Action(8)", verb: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.action.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			if got := tt.action.Verb(); got != tt.verb {
				t.Errorf("Verb() = %q, want %q", got, tt.verb)
			}
			text, err := tt.action.MarshalText()
			if tt.verb == "" {
				if !errors.Is(err, ErrInvalidAction) {
					t.Errorf("MarshalText() = %q, %v; want ErrInvalidAction", text, err)
				}
				return
			}
			if err != nil || string(text) != tt.str {
				t.Fatalf("MarshalText() = %q, %v; want %q", text, err, tt.str)
			}
			var back Action
			if err := back.UnmarshalText(text); err != nil || back != tt.action {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, tt.action)
			}
		})
	}
}

func TestActionUnmarshalInvalid(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "Create", "created", "Action(1)", "delete "} {
		var a Action
		if err := a.UnmarshalText([]byte(text)); !errors.Is(err, ErrInvalidAction) || a != 0 {
			t.Errorf("UnmarshalText(%q) = %v, %v; want ErrInvalidAction", text, a, err)
		}
	}
}

func TestDecisionJSON(t *testing.T) {
	t.Parallel()
	d := Decision{Entry: nsEntry("tenant-a", ""), Action: Keep, Reason: "in use by ExternalArtifact/tenant-a/app"}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"entry":{"kind":"Namespace","name":"tenant-a"},"action":"keep","reason":"in use by ExternalArtifact/tenant-a/app"}`
	if string(data) != want {
		t.Errorf("Marshal = %s, want %s", data, want)
	}
	var back Decision
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

func TestDecisionString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    Decision
		want string
	}{
		{name: "cluster-scoped created", d: Decision{Entry: nsEntry("tenant-a", ""), Action: Create}, want: "Namespace/tenant-a created"},
		{name: "namespaced configured", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Update}, want: "ExternalArtifact/tenant-a/app configured"},
		{name: "unchanged", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Unchanged}, want: "ExternalArtifact/tenant-a/app unchanged"},
		{name: "deleted", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Delete}, want: "ExternalArtifact/tenant-a/app deleted"},
		{name: "kept with reason", d: Decision{Entry: nsEntry("tenant-b", ""), Action: Keep, Reason: "in use by ExternalArtifact/tenant-b/web"},
			want: "Namespace/tenant-b kept (in use by ExternalArtifact/tenant-b/web)"},
		{name: "released", d: Decision{Entry: nsEntry("tenant-c", ""), Action: Release, Reason: "namespace pruning is off"},
			want: "Namespace/tenant-c released (namespace pruning is off)"},
		{name: "skipped with reason", d: Decision{Entry: ea("tenant-d", "app", ""), Action: Skip, Reason: "its namespace is refused"},
			want: "ExternalArtifact/tenant-d/app skipped (its namespace is refused)"},
		{name: "invalid action", d: Decision{Entry: nsEntry("tenant-a", "")}, want: "Namespace/tenant-a Action(0)"},
		{name: "result deleted", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Delete, Result: Deleted},
			want: "ExternalArtifact/tenant-a/app deleted"},
		{name: "result pruning disabled", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Delete, Result: PruningDisabled},
			want: "ExternalArtifact/tenant-a/app released (pruning disabled)"},
		{name: "result deletion failed, with the error", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Delete, Result: DeletionFailed, Reason: "forbidden"},
			want: "ExternalArtifact/tenant-a/app not deleted (deletion failed: forbidden)"},
		{name: "result deletion failed, no error", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Delete, Result: DeletionFailed},
			want: "ExternalArtifact/tenant-a/app not deleted (deletion failed)"},
		{name: "a result of another action is ignored", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Keep, Result: Deleted, Reason: "r"},
			want: "ExternalArtifact/tenant-a/app kept (r)"},
		{name: "an invalid result is ignored", d: Decision{Entry: ea("tenant-a", "app", ""), Action: Delete, Result: 9},
			want: "ExternalArtifact/tenant-a/app deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.d.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResult(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		r    Result
		text string
	}{
		{Deleted, "deleted"},
		{PruningDisabled, "pruning disabled"},
		{DeletionFailed, "deletion failed"},
	} {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			if got := tt.r.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
			text, err := tt.r.MarshalText()
			if err != nil || string(text) != tt.text {
				t.Errorf("MarshalText() = %q, %v", text, err)
			}
			var back Result
			if err := back.UnmarshalText(text); err != nil || back != tt.r {
				t.Errorf("UnmarshalText(%q) = %v, %v", text, back, err)
			}
		})
	}
	for _, r := range []Result{0, 4, -1} {
		if _, err := r.MarshalText(); !errors.Is(err, ErrInvalidAction) {
			t.Errorf("Result(%d).MarshalText() error = %v, want ErrInvalidAction", int(r), err)
		}
		if got, want := r.String(), fmt.Sprintf("Result(%d)", int(r)); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
	for _, text := range []string{"", "Deleted", "delete", "pruning  disabled", "failed"} {
		var r Result
		if err := r.UnmarshalText([]byte(text)); !errors.Is(err, ErrInvalidAction) || r != 0 {
			t.Errorf("UnmarshalText(%q) = %v, %v; want ErrInvalidAction", text, r, err)
		}
	}
}

func TestDecisionJSONResult(t *testing.T) {
	t.Parallel()
	d := Decision{Entry: ea("tenant-a", "app", ""), Action: Delete, Result: PruningDisabled}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"entry":{"kind":"ExternalArtifact","namespace":"tenant-a","name":"app"},"action":"delete","result":"pruning disabled"}`
	if string(data) != want {
		t.Errorf("Marshal = %s, want %s", data, want)
	}
	var back Decision
	if err := json.Unmarshal(data, &back); err != nil || back != d {
		t.Errorf("Unmarshal = %+v, %v; want %+v", back, err, d)
	}
}

// FuzzResultUnmarshalText: UnmarshalText accepts exactly the three words,
// which read back as they were written.
func FuzzResultUnmarshalText(f *testing.F) {
	for _, s := range []string{"deleted", "pruning disabled", "deletion failed", "", "Deleted", "Result(0)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var r Result
		err := r.UnmarshalText([]byte(s))
		if err != nil {
			if r != 0 || !errors.Is(err, ErrInvalidAction) {
				t.Fatalf("UnmarshalText(%q) = %v, %v", s, r, err)
			}
			return
		}
		text, err := r.MarshalText()
		if err != nil || string(text) != s || r.String() != s {
			t.Fatalf("UnmarshalText(%q) = %v, which writes %q, %v", s, r, text, err)
		}
	})
}
