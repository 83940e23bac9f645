package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import dev.periscope.api.host.Secret;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The secrets filled into each browser session, held in memory only, so that whatever the page
 * echoes of them (into its text, a title, a URL, an attribute that becomes a name) reaches the
 * caller as {@code [REDACTED:ref]}: in observations, extraction results and failures. A password
 * the model typed into a password field ({@code credentials.modelTypedPasswords: allow}) is kept
 * the same way and shows as {@code [REDACTED:typed-password]}. Redaction runs on what the provider
 * returned, before paging or rendering can cut a copy in two.
 */
final class Redactions {
  /** The label of every password the model typed. */
  static final String TYPED_PASSWORD = "typed-password";

  /**
   * Each session's secrets by key: a credential's reference, with {@code ref + EARLIER + n} for a
   * value it had before (filled again after the credential changed: the page may still hold the old
   * one), or {@code typed-password#n} for each password typed (a session may type several).
   */
  private final Map<BrowserSessionId, Map<String, Secret>> filled = new ConcurrentHashMap<>();

  private final java.util.concurrent.atomic.AtomicLong typed =
      new java.util.concurrent.atomic.AtomicLong();

  void remember(BrowserSessionId session, String ref, Secret secret) {
    Map<String, Secret> secrets = filled.computeIfAbsent(session, s -> new ConcurrentHashMap<>());
    Secret before = secrets.put(ref, secret);
    if (before != null && !before.reveal().equals(secret.reveal())) {
      secrets.put(ref + EARLIER + typed.incrementAndGet(), before);
    }
  }

  /** Between a credential's reference and the number of a value it had before. */
  private static final char EARLIER = '\u0000';

  /** A password the model typed, redacted as {@code [REDACTED:typed-password]} from now on. */
  void rememberTypedPassword(BrowserSessionId session, Secret secret) {
    remember(session, TYPED_PASSWORD + "#" + typed.incrementAndGet(), secret);
  }

  /** Each session's egress guard, made as its first secret is filled. */
  private final Map<BrowserSessionId, SecretEgress> egress = new ConcurrentHashMap<>();

  /** The egress guard of {@code session}'s secrets. */
  SecretEgress egress(BrowserSessionId session) {
    return egress.computeIfAbsent(session, s -> new SecretEgress());
  }

  /** The egress guard of {@code session}, if a secret of it is guarded. */
  java.util.Optional<SecretEgress> guarding(BrowserSessionId session) {
    return java.util.Optional.ofNullable(egress.get(session)).filter(SecretEgress::guards);
  }

  void forget(BrowserSessionId session) {
    filled.remove(session);
    egress.remove(session);
  }

  String text(BrowserSessionId session, String text) {
    Map<String, Secret> secrets = filled.get(session);
    if (secrets == null || text == null) {
      return text;
    }
    String result = text;
    // Longest first: a secret that holds a shorter one is replaced whole, not around it.
    List<Map.Entry<String, Secret>> longestFirst = new java.util.ArrayList<>(secrets.entrySet());
    longestFirst.sort((a, b) -> Integer.compare(b.getValue().length(), a.getValue().length()));
    for (Map.Entry<String, Secret> e : longestFirst) {
      result = e.getValue().redactFrom(result, marker(e.getKey()));
    }
    return result;
  }

  /**
   * JSON text with every secret of the session redacted, as text is, and also where JSON escaped
   * it: a secret holding a quote, a backslash or a control character appears escaped there.
   */
  String json(BrowserSessionId session, String json) {
    String result = text(session, json);
    Map<String, Secret> secrets = filled.get(session);
    if (secrets == null || result == null) {
      return result;
    }
    for (Map.Entry<String, Secret> e : secrets.entrySet()) {
      String value = e.getValue().reveal();
      String escaped = JSON_ESCAPING.toJson(value);
      escaped = escaped.substring(1, escaped.length() - 1);
      if (!escaped.isEmpty() && !escaped.equals(value)) {
        result = result.replace(escaped, marker(e.getKey()));
      }
    }
    return result;
  }

  /**
   * What stands in for a secret: its reference, or one label for every password the model typed.
   */
  private static String marker(String key) {
    String name = key.startsWith(TYPED_PASSWORD + "#") ? TYPED_PASSWORD : key;
    int earlier = name.indexOf(EARLIER);
    return "[REDACTED:" + (earlier < 0 ? name : name.substring(0, earlier)) + "]";
  }

  /** Escapes as JSON.stringify does: quotes, backslashes and control characters, nothing else. */
  private static final com.google.gson.Gson JSON_ESCAPING =
      new com.google.gson.GsonBuilder().disableHtmlEscaping().create();

  /**
   * A page event with the session's secrets redacted; one that still carries a secret in another
   * form (a failed request's URL with it base64-encoded, say) is not shown at all.
   */
  private String pageEvent(BrowserSessionId session, String line) {
    String redacted = text(session, line);
    SecretEgress guard = egress.get(session);
    return guard != null && guard.carries(redacted)
        ? "(a page event that carries a secret of this session in another form; not shown)"
        : redacted;
  }

  ProviderObservation observation(BrowserSessionId session, ProviderObservation o) {
    if (!filled.containsKey(session)) {
      return o;
    }
    java.util.function.UnaryOperator<String> redact = t -> text(session, t);
    List<ProviderElement> elements = o.elements().stream().map(e -> e.mapText(redact)).toList();
    return new ProviderObservation(
        text(session, o.url()),
        text(session, o.title()),
        text(session, o.text()),
        o.totalTextChars(),
        elements,
        o.totalElements(),
        o.elementsTruncated(),
        o.pageEvents().stream().map(line -> pageEvent(session, line)).toList(),
        o.status(),
        o.dialog() == null
            ? null
            : new dev.periscope.api.browser.PageDialog(
                o.dialog().type(),
                text(session, o.dialog().message()),
                text(session, o.dialog().defaultPrompt())),
        o.tabs().stream()
            .map(
                t ->
                    new dev.periscope.api.browser.PageTab(
                        t.id(), text(session, t.url()), text(session, t.title()), t.active()))
            .toList(),
        o.challenge() == null
            ? null
            : new dev.periscope.api.browser.spi.ProviderChallenge(
                o.challenge().kind(),
                o.challenge().vendor(),
                text(session, o.challenge().frame()),
                o.challenge().target(),
                o.challenge().gated(),
                o.challenge().wholePage()),
        o.records().stream().map(r -> r.mapText(redact)).toList(),
        o.textLines());
  }

  Extraction extraction(BrowserSessionId session, Extraction e) {
    if (!filled.containsKey(session)) {
      return e;
    }
    List<Map<String, String>> rows =
        e.rows().stream()
            .map(
                row -> {
                  Map<String, String> copy = new LinkedHashMap<>();
                  row.forEach(
                      (column, value) -> copy.put(text(session, column), text(session, value)));
                  return copy;
                })
            .toList();
    return new Extraction(
        e.kind(),
        text(session, e.url()),
        e.observationId(),
        e.columns().stream().map(c -> text(session, c)).toList(),
        rows,
        e.total());
  }

  /**
   * How far past a caller's limit a provider reads values, so that redaction sees whole copies
   * before the cut.
   */
  static final int CUT_SLACK = 256;

  /** Each value cut to {@code maxChars}, after redaction. */
  static Extraction cut(Extraction e, int maxChars) {
    List<Map<String, String>> rows =
        e.rows().stream()
            .map(
                row -> {
                  Map<String, String> copy = new LinkedHashMap<>();
                  row.forEach(
                      (column, value) ->
                          copy.put(
                              column,
                              value != null && value.length() > maxChars
                                  ? value.substring(0, maxChars)
                                  : value));
                  return copy;
                })
            .toList();
    return new Extraction(e.kind(), e.url(), e.observationId(), e.columns(), rows, e.total());
  }

  /**
   * The failure with its message and URL redacted. Its cause keeps only its type, its redacted
   * message and its stack: a provider's raw message may quote what it was given.
   */
  BrowserException failure(BrowserSessionId session, BrowserException e) {
    if (!filled.containsKey(session)) {
      return e;
    }
    Throwable cause = e.getCause();
    RuntimeException redactedCause = null;
    if (cause != null) {
      redactedCause =
          new RuntimeException(
              cause.getClass().getName() + ": " + text(session, cause.getMessage()));
      redactedCause.setStackTrace(cause.getStackTrace());
    }
    return e.rewritten(text(session, e.getMessage()), text(session, e.url()), redactedCause);
  }
}
