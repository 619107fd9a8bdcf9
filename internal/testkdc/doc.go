// Package testkdc runs a throwaway MIT Kerberos realm for tests: a KDC
// database in a temporary directory, krb5kdc in the foreground on a free
// 127.0.0.1 port (TCP and UDP, bound to 127.0.0.1 only), and a krb5.conf that points clients at it.
//
// The MIT programs (krb5kdc, kdb5_util, kadmin.local from Debian's
// krb5-kdc and krb5-admin-server packages) must be installed; Available
// says why not, for t.Skip. The configuration reaches the child processes
// through their own environment (KRB5_CONFIG, KRB5_KDC_PROFILE) only: the
// test process's environment is never changed, so Java and Go clients must
// be given KDC.Krb5Conf explicitly (java -Djava.security.krb5.conf=...,
// or KDC.Env for MIT tools such as kinit).
//
// Everything is stopped and removed at the test's cleanup.
package testkdc
