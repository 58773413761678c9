package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tenantkit/tenantkit/inventory"
)

// TenantSetKind is the kind of TenantSet, which a TenantGenerator lets take
// a namespace's hand-off (its external finalizer).
const TenantSetKind = "TenantSet"

// TenantSetGroupKind is TenantSet's group and kind, for
// generator.WithFinalizerKinds.
var TenantSetGroupKind = schema.GroupKind{Group: GroupVersion.Group, Kind: TenantSetKind}

// TenantSet is the example's minimal stand-in for flux-operator's
// ResourceSet fed by a ResourceSetInputProvider of type ExternalArtifact:
// it selects the ExternalArtifacts that TenantGenerators write, merges each
// one's exported inputs with the provider's own, and renders per tenant a
// ConfigMap of the inputs and the tenant's Namespace, which it stamps as its
// external finalizer. It deletes what it rendered, in order, when an
// artifact goes and when it is deleted itself.
type TenantSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSetSpec   `json:"spec"`
	Status TenantSetStatus `json:"status,omitempty"`
}

// TenantSetList is a list of TenantSets.
type TenantSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TenantSet `json:"items"`
}

// TenantSetSpec says which ExternalArtifacts feed the set, and as whom it
// reads and writes.
type TenantSetSpec struct {
	// ServiceAccountName is the service account, in the set's namespace,
	// that the controller impersonates for every read and write the set
	// makes: listing ExternalArtifacts, applying and deleting what it
	// renders. Without it, the controller's --default-service-account.
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// Selector selects ExternalArtifacts in every namespace by label: a
	// TenantGenerator's spec.commonMetadata.labels, which each of its
	// artifacts carries. It must not be empty (an empty selector would
	// select every ExternalArtifact of the cluster).
	Selector metav1.LabelSelector `json:"selector"`
}

// TenantSetStatus is what the controller observed and did.
type TenantSetStatus struct {
	// ObservedGeneration is the generation of the spec last reconciled.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions hold Ready, with a reason (see the Reason constants).
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Inventory is every object the set rendered and has not seen
	// deleted (or released), in apply order.
	Inventory []inventory.Entry `json:"inventory,omitempty"`

	// LastPlan summarizes the last reconcile; Warnings name the exported
	// inputs that the provider's own inputs overrode.
	LastPlan *PlanSummary `json:"lastPlan,omitempty"`
}

// The reasons of a TenantSet's Ready condition besides the
// TenantGenerator's (ReasonSucceeded, ReasonApplyFailed,
// ReasonDeletionInProgress, ReasonFinalizing, ReasonInvalidSpec,
// ReasonNoServiceAccount).
const (
	// ReasonInvalidInputs: a selected ExternalArtifact's inputs, or what
	// they render, are invalid; nothing was applied or deleted.
	ReasonInvalidInputs = "InvalidInputs"
	// ReasonInvalidInventory: status.inventory does not validate (an
	// invalid entry, an object listed twice); a reconcile applies and
	// deletes nothing, a teardown leaves the invalid entries out and says
	// so.
	ReasonInvalidInventory = "InvalidInventory"
	// ReasonListFailed: the ExternalArtifacts could not be listed; nothing
	// was applied or deleted.
	ReasonListFailed = "ListFailed"
	// ReasonDeletionFailed: a deletion, or the release of a namespace's
	// externalFinalizer annotation, failed; the object stays tracked and
	// the reconcile is retried.
	ReasonDeletionFailed = "DeletionFailed"
)
