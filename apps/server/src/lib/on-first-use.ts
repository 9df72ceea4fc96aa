/**
 * A module loaded the first time a call needs it, then kept. Libraries that only some calls use
 * (WebAuthn, CMS signatures, DICOM codecs, the S3 client, the demo's PDF making) stay out of the
 * process's start: a portal is ready sooner after a restart, which a load balancer waits for,
 * and holds less memory until they are used.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
}
