package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenantkit/tenantkit/inventory"
)

// TenantGenerator discovers tenants in local source directories, creates their
// namespaces and ExternalArtifacts, and garbage-collects them.
type TenantGenerator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantGeneratorSpec   `json:"spec"`
	Status TenantGeneratorStatus `json:"status,omitempty"`
}

// TenantGeneratorList is a list of TenantGenerators.
type TenantGeneratorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TenantGenerator `json:"items"`
}

// TenantGeneratorSpec is the ArtifactGenerator's tenant-provisioning spec,
// field for field, with namespace management in released source-watcher
// v2.3's shape (spec.managedNamespaces).
// The reconciler hands it, as JSON, to the generator package, which validates
// all of it.
type TenantGeneratorSpec struct {
	// ServiceAccountName is the service account, in the generator's
	// namespace, that the controller impersonates for every namespace and
	// artifact write. Without it, the controller's --default-service-account
	// is used; without either, managing namespaces is refused.
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// PathPattern discovers tenants and modules, e.g.
	// "@repo/tenants/{namespace}/modules/{module}". Optional, as upstream:
	// without it each artifact is one literal artifact.
	PathPattern string `json:"pathPattern,omitempty"`

	// CommonMetadata is applied to every namespace and artifact.
	CommonMetadata *Metadata `json:"commonMetadata,omitempty"`

	// Sources name the aliases; the controller maps each alias to a local
	// directory given by its --source flag.
	Sources []Source `json:"sources"`

	// Artifacts are the ExternalArtifacts to generate per match.
	Artifacts []Artifact `json:"artifacts"`

	// ManagedNamespaces opts into namespace management. Omitted, the
	// artifacts' namespaces are unmanaged: they must exist already and are
	// left alone.
	ManagedNamespaces *ManagedNamespaces `json:"managedNamespaces,omitempty"`
}

// ManagesNamespaces reports whether the spec asks the controller to manage
// namespaces.
func (s *TenantGeneratorSpec) ManagesNamespaces() bool {
	return s.ManagedNamespaces != nil
}

// Metadata is a set of labels and annotations.
type Metadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Source names a source by its alias.
type Source struct {
	Alias     string `json:"alias"`
	Kind      string `json:"kind,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// Artifact is one ExternalArtifact template.
type Artifact struct {
	Name           string `json:"name"`
	Namespace      string `json:"namespace,omitempty"`
	InputsFrom     string `json:"inputsFrom,omitempty"`
	OriginRevision string `json:"originRevision,omitempty"`
	Copy           []Copy `json:"copy"`
}

// Copy is one copy operation of an artifact.
type Copy struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Exclude  []string `json:"exclude,omitempty"`
	Strategy string   `json:"strategy,omitempty"`
}

// ManagedNamespaces is spec.managedNamespaces: which of the artifacts'
// namespaces the generator manages, whether it prunes them, and how their
// labels and annotations are built.
type ManagedNamespaces struct {
	// AllowedNames are CEL expressions over the namespace name, the string
	// variable ns; a namespace is managed when one of them is true, unless
	// package generator protects it (see its doc). At least one is
	// required.
	AllowedNames []string `json:"allowedNames"`
	// Prune deletes managed namespaces that no artifact targets any more,
	// and those left when the generator is deleted. Required.
	Prune bool `json:"prune"`
	// Metadata builds each namespace's labels and annotations on top of
	// spec.commonMetadata.
	Metadata *NamespaceMetadata `json:"metadata,omitempty"`
}

// NamespaceMetadata says where namespace metadata comes from: a
// NamespaceMetadata file, then the operations of From in order. At least
// one of the two is required.
type NamespaceMetadata struct {
	FromSource *FromSource `json:"fromSource,omitempty"`
	From       []Operation `json:"from,omitempty"`
}

// FromSource reads a NamespaceMetadata file per namespace, under a schema:
// each value of AllowedLabels and AllowedAnnotations is a CEL expression
// over the string variable value. At least one rule is required.
type FromSource struct {
	Path               string            `json:"path"`
	AllowedLabels      map[string]string `json:"allowedLabels,omitempty"`
	AllowedAnnotations map[string]string `json:"allowedAnnotations,omitempty"`
}

// Operation is one step of the metadata block's from.
type Operation struct {
	Strategy    string            `json:"strategy"`
	Namespace   string            `json:"namespace"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// TenantGeneratorStatus is what the controller observed and did.
type TenantGeneratorStatus struct {
	// ObservedGeneration is the generation of the spec last reconciled.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions hold Ready, with a reason (see the Reason constants), and
	// Reconciling or Stalled when they are True.
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Inventory is what the controller tracks, in the ArtifactGenerator's
	// status.inventory shape: desired objects, and every object whose
	// deletion the API server has not confirmed.
	Inventory []inventory.Entry `json:"inventory,omitempty"`

	// LastPlan summarizes the last reconcile.
	LastPlan *PlanSummary `json:"lastPlan,omitempty"`
}

// PlanSummary counts the decisions of one reconcile and lists the changes.
type PlanSummary struct {
	// Create .. Skip count the objects by decision.
	Create    int `json:"create"`
	Update    int `json:"update"`
	Unchanged int `json:"unchanged"`
	Delete    int `json:"delete"`
	Release   int `json:"release"`
	Keep      int `json:"keep"`
	Skip      int `json:"skip"`

	// Changes are Flux-style change lines for everything that is not
	// unchanged ("Namespace/tenant-a created"), in order, at most
	// MaxListed, each with its reason.
	Changes []string `json:"changes,omitempty"`

	// Warnings and Errors of the plan and of its application, at most
	// MaxListed each.
	Warnings []string `json:"warnings,omitempty"`
	Errors   []string `json:"errors,omitempty"`

	// Truncated is true when a list above was cut at MaxListed.
	Truncated bool `json:"truncated,omitempty"`
}

// MaxListed bounds each list of a PlanSummary: the status is stored in etcd
// (1.5 MiB per object by default), and a thousand tenants' worth of change
// lines belongs in events and logs, not in the object.
const MaxListed = 50

// Finalizer is the finalizer the controller puts on every TenantGenerator
// and TenantSet on its first reconcile and removes once deleting the object
// has deleted or released everything it tracked.
const Finalizer = "tenants.tenantkit.dev/finalizer"

// The condition types and their reasons, in Flux's vocabulary (kstatus).
const (
	// ConditionReady says whether the last reconcile did all it had to.
	ConditionReady = "Ready"
	// ConditionReconciling is True, with ReasonProgressingWithRetry, while
	// a reconcile left work that a retry will do (a deletion in progress,
	// a failed write or read, a finalize not finished); absent otherwise.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True, with Ready's reason, when nothing will
	// change until the spec or the controller's flags do (InvalidSpec,
	// ServiceAccountRequired); absent otherwise.
	ConditionStalled = "Stalled"

	// ReasonProgressingWithRetry: the reason of Reconciling.
	ReasonProgressingWithRetry = "ProgressingWithRetry"

	// ReasonSucceeded: the plan was applied and every deletion confirmed.
	ReasonSucceeded = "ReconciliationSucceeded"
	// ReasonDeletionInProgress: a deletion was accepted but the object is
	// still there (a namespace stays Terminating until its content is gone);
	// it stays in the inventory and the reconcile is requeued.
	ReasonDeletionInProgress = "DeletionInProgress"
	// ReasonInvalidSpec: the spec does not compile.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonSourceUnavailable: a --source directory is missing or unusable.
	ReasonSourceUnavailable = "SourceUnavailable"
	// ReasonPlanFailed: the desired state has errors; nothing was deleted.
	ReasonPlanFailed = "PlanFailed"
	// ReasonNoServiceAccount: namespace management needs a service account
	// to impersonate, and neither the spec nor the controller names one.
	ReasonNoServiceAccount = "ServiceAccountRequired"
	// ReasonApplyFailed: a write was refused or failed.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonFinalizing: the generator is deleted and some of what it
	// tracks is not gone yet (a deletion not confirmed, a namespace that
	// another generator's ExternalArtifact keeps); the finalizer stays and
	// the reconcile is requeued.
	ReasonFinalizing = "Finalizing"
	// ReasonGarbageCollectionBlocked: a stale object is kept because a
	// check failed (a finalizer lookup was forbidden, say); it is retried.
	ReasonGarbageCollectionBlocked = "GarbageCollectionBlocked"
)
