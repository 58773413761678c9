// Command controller is tenantkit's example tenant-provisioning controller:
// it reconciles TenantGenerators (tenants.tenantkit.dev/v1alpha1), whose spec
// is the ArtifactGenerator's, from local source directories, and TenantSets,
// which render per-tenant objects from the ExternalArtifacts those write.
//
//	controller --source repo=./monorepo --default-service-account tenant-provisioner
//
// Install config/crd and an ExternalArtifact CRD first. See README.md in
// this directory, and internal/reconciler for what one reconcile does.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/examples/controller/internal/reconciler"
	"github.com/tenantkit/tenantkit/generator"
)

// sourceFlags collects --source alias=DIR.
type sourceFlags map[string]string

func (s sourceFlags) String() string {
	var parts []string
	for k, v := range s {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

func (s sourceFlags) Set(v string) error {
	alias, dir, ok := strings.Cut(v, "=")
	if !ok || alias == "" || dir == "" {
		return fmt.Errorf("must be ALIAS=DIR, got %q", v)
	}
	if _, dup := s[alias]; dup {
		return fmt.Errorf("alias %q given twice", alias)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%q is not a directory", dir)
	}
	s[alias] = dir
	return nil
}

func main() {
	sources := sourceFlags{}
	var (
		defaultSA    string
		interval     time.Duration
		retry        time.Duration
		maxDeletions int
		allowDelAll  bool
		metricsAddr  string
		probeAddr    string
		leaderElect  bool
		zapOpts      zap.Options
	)
	flag.Var(sources, "source", "ALIAS=DIR: the directory of a source alias, as a source controller would have extracted it (repeatable)")
	flag.StringVar(&defaultSA, "default-service-account", "", "service account to impersonate when spec.serviceAccountName is empty; managing namespaces needs one of the two")
	flag.DurationVar(&interval, "interval", 10*time.Minute, "how often to reconcile again, to correct drift and read the sources")
	flag.DurationVar(&retry, "retry-interval", 30*time.Second, "how soon to retry a reconcile that left work undone")
	flag.IntVar(&maxDeletions, "max-deletions", -1, "refuse a reconcile that would delete more than this many objects (-1: no limit)")
	flag.BoolVar(&allowDelAll, "allow-delete-all", false, "allow a reconcile to delete every object of a non-empty inventory")
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "metrics address; 0 turns metrics off")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "health probe address")
	flag.BoolVar(&leaderElect, "leader-elect", false, "enable leader election")
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		log.Error(err, "scheme")
		os.Exit(1)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		log.Error(err, "scheme")
		os.Exit(1)
	}
	cfg := ctrl.GetConfigOrDie()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         leaderElect,
		LeaderElectionID:       "tenantkit-controller.tenants.tenantkit.dev",
	})
	if err != nil {
		log.Error(err, "manager")
		os.Exit(1)
	}
	var opts []generator.Option
	if maxDeletions >= 0 {
		opts = append(opts, generator.WithMaxDeletions(maxDeletions))
	}
	if allowDelAll {
		opts = append(opts, generator.WithAllowDeleteAll())
	}
	r := &reconciler.Reconciler{
		Client:                mgr.GetClient(),
		Config:                cfg,
		Scheme:                scheme,
		Recorder:              mgr.GetEventRecorder("tenantkit-controller"),
		Sources:               sources,
		DefaultServiceAccount: defaultSA,
		Interval:              interval,
		RetryInterval:         retry,
		Options:               opts,
	}
	if err := r.SetupWithManager(mgr); err != nil {
		log.Error(err, "controller")
		os.Exit(1)
	}
	ts := &reconciler.TenantSetReconciler{
		Client:                mgr.GetClient(),
		Config:                cfg,
		Scheme:                scheme,
		DefaultServiceAccount: defaultSA,
		Interval:              interval,
		RetryInterval:         retry,
	}
	if err := ts.SetupWithManager(mgr); err != nil {
		log.Error(err, "controller")
		os.Exit(1)
	}
	log.Info("starting", "sources", sources.String(), "defaultServiceAccount", defaultSA)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager")
		os.Exit(1)
	}
}
