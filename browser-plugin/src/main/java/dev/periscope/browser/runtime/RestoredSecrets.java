package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.host.Secret;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The secrets a restored browser's saved data may hold: those that had gone into the session's
 * pages when its checkpoint was written ({@link CheckpointIndex.FilledSecret}). A process that
 * never held them (the host restarted since) resolves each credential again by its reference, only
 * to redact it and keep it to its own origins: nothing goes into a page, so nobody is asked. A
 * password the model typed was never stored and cannot be taken up; neither can a credential that
 * no longer resolves: each is an {@code egress} event of the journal, once per session, saying that
 * its way out is not guarded. A credential whose value changed since is guarded with the value it
 * has now.
 */
final class RestoredSecrets {
  private RestoredSecrets() {}

  /**
   * Readies a new environment of a session whose secrets went into a page (after a fault, a
   * release, a restore, a restart of the host): the secrets {@code saved} names are taken up, and
   * the browser is guarded for every secret of the session, before its saved tabs reopen and their
   * pages run, since the pages' stored data may hold them.
   */
  static void guardThenReopen(
      DefaultBrowserRuntime runtime,
      Environment environment,
      List<CheckpointIndex.FilledSecret> saved) {
    takeUp(runtime, environment, saved);
    runtime
        .redactions()
        .guarding(environment.sessionId)
        .ifPresent(egress -> egress.arm(runtime, environment));
    environment.step(
        "reopening the saved tabs",
        environment.timeouts().navigationMs(),
        () -> {
          environment.delegate().reopenSaved();
          return null;
        });
  }

  /** Takes up the secrets {@code saved} names that this process does not hold for the session. */
  private static void takeUp(
      DefaultBrowserRuntime runtime,
      Environment environment,
      List<CheckpointIndex.FilledSecret> saved) {
    if (saved.isEmpty()) {
      return;
    }
    SecretEgress egress = runtime.redactions().egress(environment.sessionId);
    Map<String, Secret> resolved = new HashMap<>();
    for (CheckpointIndex.FilledSecret s : saved) {
      if (egress.guards(s)) {
        continue;
      }
      if (s.ref().equals(Redactions.TYPED_PASSWORD)) {
        egress.journalOnce(
            runtime,
            environment,
            "a password the model typed went into this session's pages before its browser was"
                + " saved; it was never stored, so its way out is not guarded now");
        continue;
      }
      Secret secret = resolved.get(s.ref());
      if (secret == null) {
        try {
          secret = runtime.credentials().resolve(s.ref()).secret();
        } catch (RuntimeException unavailable) {
          // The host's credential service may fail in words of its own: only our words, or the
          // failure's kind, go into the journal.
          String why =
              unavailable instanceof BrowserException
                  ? unavailable.getMessage()
                  : "the credential service failed: " + unavailable.getClass().getSimpleName();
          egress.journalOnce(
              runtime,
              environment,
              "credential \""
                  + s.ref()
                  + "\" went into this session's pages before its browser was saved and cannot be"
                  + " resolved now ("
                  + why
                  + "), so its way out is not guarded");
          continue;
        }
        resolved.put(s.ref(), secret);
        runtime.redactions().remember(environment.sessionId, s.ref(), secret);
      }
      egress.add(s.ref(), secret, SecretEgress.origins(s.origins().toArray(String[]::new)));
    }
  }
}
