package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserException;
import java.util.List;

/**
 * The secrets a restored browser's saved data may hold: those that had gone into the session's
 * pages when its checkpoint was written ({@link CheckpointIndex.FilledSecret}). A process that
 * never held them (the host restarted since) resolves each credential again by its reference, only
 * to redact it and keep it to its own origins: nothing goes into a page, so nobody is asked. A
 * password the model typed was never stored and cannot be; it and a credential that no longer
 * resolves are each an {@code egress} event of the journal saying that its way out is not guarded.
 */
final class RestoredSecrets {
  private RestoredSecrets() {}

  /** Takes up the secrets {@code saved} names that this process does not hold for the session. */
  static void takeUp(
      DefaultBrowserRuntime runtime,
      Environment environment,
      List<CheckpointIndex.FilledSecret> saved) {
    SecretEgress egress = null;
    for (CheckpointIndex.FilledSecret s : saved) {
      if (runtime
          .redactions()
          .guarding(environment.sessionId)
          .filter(e -> e.guards(s.ref()))
          .isPresent()) {
        continue;
      }
      if (s.ref().equals(Redactions.TYPED_PASSWORD)) {
        SecretEgress.journal(
            runtime,
            environment,
            "a password the model typed went into this session's pages before its browser was"
                + " saved; it was never stored, so its way out is not guarded now");
        continue;
      }
      CredentialChannel.Credential credential;
      try {
        credential = runtime.credentials().resolve(s.ref());
      } catch (BrowserException unavailable) {
        SecretEgress.journal(
            runtime,
            environment,
            "credential \""
                + s.ref()
                + "\" went into this session's pages before its browser was saved and cannot be"
                + " resolved now ("
                + unavailable.getMessage()
                + "), so its way out is not guarded");
        continue;
      }
      runtime.redactions().remember(environment.sessionId, s.ref(), credential.secret());
      if (egress == null) {
        egress = runtime.redactions().egress(environment.sessionId);
      }
      egress.add(
          s.ref(), credential.secret(), SecretEgress.origins(s.origins().toArray(String[]::new)));
    }
  }
}
