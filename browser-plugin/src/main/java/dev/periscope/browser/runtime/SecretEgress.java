package dev.periscope.browser.runtime;

import dev.periscope.api.browser.Transition;
import dev.periscope.api.browser.spi.EgressGuard;
import dev.periscope.api.host.OriginPattern;
import dev.periscope.api.host.Secret;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The egress guard of one browser session: the secrets that went into its pages, each with its own
 * origins (a credential's configured origins; for a credential bound to none and for a password the
 * user gave, the origin of the frame it went into). A request or WebSocket message that carries one
 * of them ({@link SecretForms}) to any other origin is refused; a request to a secret's own origins
 * is never looked into for that secret. Each refusal is a page event and an {@code egress} event in
 * the session's journal, naming the destination's origin and the secret's reference, never its
 * value.
 */
final class SecretEgress {
  /** A secret in the session's pages: its reference, its forms, and where it may go. */
  private record Guarded(String ref, SecretForms forms, List<OriginPattern> own) {
    boolean ownOrigin(String origin) {
      for (OriginPattern p : own) {
        if (p.matches(origin)) {
          return true;
        }
      }
      return false;
    }
  }

  private final List<Guarded> guarded = new CopyOnWriteArrayList<>();

  /** Whether any secret is guarded. */
  boolean guards() {
    return !guarded.isEmpty();
  }

  /** Whether {@code secret} (a reference with exactly these origins) is guarded. */
  boolean guards(CheckpointIndex.FilledSecret secret) {
    return filled().contains(secret);
  }

  /** The guarded secrets as a checkpoint keeps them: references and origins, never values. */
  List<CheckpointIndex.FilledSecret> filled() {
    return guarded.stream()
        .map(
            g ->
                new CheckpointIndex.FilledSecret(
                    g.ref(), g.own().stream().map(OriginPattern::toString).toList()))
        .distinct()
        .toList();
  }

  /**
   * Guards {@code secret}, shown as {@code ref}, which may go only to {@code own} (patterns, or the
   * origin strings of {@code ownOrigins}; an opaque origin admits nothing).
   */
  void add(String ref, Secret secret, List<OriginPattern> own) {
    if (!secret.isEmpty()) {
      guarded.add(new Guarded(ref, new SecretForms(secret), List.copyOf(own)));
    }
  }

  /**
   * Whether {@code text} carries a guarded secret in any of its forms (plain, percent-encoded,
   * base64, hex, reversed): a line of the page's that quotes a request's URL may.
   */
  boolean carries(String text) {
    for (Guarded g : guarded) {
      if (g.forms().foundIn(text)) {
        return true;
      }
    }
    return false;
  }

  /** The patterns of origins as a frame's origin chain names them; an opaque one is none. */
  static List<OriginPattern> origins(String... origins) {
    List<OriginPattern> patterns = new ArrayList<>();
    for (String o : origins) {
      try {
        patterns.add(OriginPattern.parse(o));
      } catch (IllegalArgumentException opaque) {
        // "null" or another scheme: nothing goes there
      }
    }
    return patterns;
  }

  /**
   * Hands {@code environment} the guard, on its queue, before a secret goes into its page. A
   * provider that cannot guard says so; the fill goes on, and the journal records that its secrets
   * are unguarded.
   */
  void arm(DefaultBrowserRuntime runtime, Environment environment) {
    EgressGuard guard =
        (url, headers, body) -> {
          Optional<String> refused = refusal(url, headers, body);
          refused
              .filter(this::firstOfItsKind)
              .ifPresent(line -> journal(runtime, environment, line));
          return refused;
        };
    boolean guarding =
        environment.step(
            "guarding the secret's way out",
            environment.timeouts().actionMs(),
            () -> environment.delegate().guardEgress(guard));
    if (!guarding) {
      journal(
          runtime,
          environment,
          "this browser provider cannot keep a filled secret to its own origins: unguarded");
    }
  }

  /** The refusals journaled so far: a page that retries (an EventSource does) is journaled once. */
  private final Set<String> journaled = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** The most refusals of one session the journal records. */
  static final int MAX_JOURNALED = 100;

  private boolean firstOfItsKind(String line) {
    return journaled.size() < MAX_JOURNALED && journaled.add(line);
  }

  /** Journals {@code line} as an {@code egress} event, once per session however often it recurs. */
  void journalOnce(DefaultBrowserRuntime runtime, Environment environment, String line) {
    if (firstOfItsKind(line)) {
      journal(runtime, environment, line);
    }
  }

  private static void journal(DefaultBrowserRuntime runtime, Environment environment, String line) {
    java.time.Instant now = java.time.Instant.now();
    runtime.recordTransition(
        environment.event("egress", line, Transition.Outcome.FAILED, null, null, now, 0),
        null,
        environment.placement());
  }

  /** Empty when the request may leave; otherwise the line that tells of its refusal. */
  Optional<String> refusal(String url, Map<String, String> headers, byte[] body) {
    Destination to = Destination.of(url);
    if (to == null) {
      return Optional.empty();
    }
    Set<String> carried = new LinkedHashSet<>();
    for (Guarded g : guarded) {
      if (!carried.contains(g.ref())
          && !g.ownOrigin(to.origin())
          && carries(g, to, headers, body)) {
        carried.add(g.ref());
      }
    }
    if (carried.isEmpty()) {
      return Optional.empty();
    }
    List<String> named = carried.stream().map(r -> "\"" + r + "\"").toList();
    return Optional.of(
        "a request to "
            + shown(to)
            + " carrying the secret "
            + String.join(", ", named)
            + " was refused: a filled secret goes only to its own origins");
  }

  private static boolean carries(
      Guarded g, Destination to, Map<String, String> headers, byte[] body) {
    if (g.forms().foundInHost(to.host()) || g.forms().foundIn(to.url())) {
      return true;
    }
    if (headers != null) {
      for (Map.Entry<String, String> h : headers.entrySet()) {
        if (g.forms().foundIn(h.getKey()) || g.forms().foundIn(h.getValue())) {
          return true;
        }
      }
    }
    return g.forms().foundIn(body);
  }

  /**
   * The destination's origin as a page event and the journal name it: a host that carries a secret
   * (in any of its labels, or across them) shows only its last two labels, the rest as {@code (…)},
   * since a label that holds a piece of the secret is no more to be shown than the whole.
   */
  private String shown(Destination to) {
    String host = to.host();
    if (carriesHost(host)) {
      String[] labels = host.split("\\.");
      host =
          "(a name that carries the secret)"
              + (labels.length > 2
                  ? "." + labels[labels.length - 2] + "." + labels[labels.length - 1]
                  : "");
    }
    return to.scheme() + "://" + host + to.portSuffix();
  }

  private boolean carriesHost(String host) {
    for (Guarded g : guarded) {
      if (g.forms().foundInHost(host)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Where a request goes: its scheme (a WebSocket's as the HTTP one it starts from), host and port,
   * read by hand so that a URL {@link java.net.URI} would refuse is judged all the same.
   */
  record Destination(String url, String scheme, String host, String portSuffix) {
    String origin() {
      return scheme + "://" + host + portSuffix;
    }

    /** Null for a URL that does not leave the browser ({@code data:}, {@code blob:}, ...). */
    static Destination of(String url) {
      int colon = url.indexOf("://");
      if (colon <= 0) {
        return null;
      }
      String scheme =
          switch (url.substring(0, colon).toLowerCase(Locale.ROOT)) {
            case "http", "ws" -> "http";
            case "https", "wss" -> "https";
            default -> null;
          };
      if (scheme == null) {
        return null;
      }
      String rest = url.substring(colon + 3);
      int end = 0;
      while (end < rest.length() && "/?#\\".indexOf(rest.charAt(end)) < 0) {
        end++;
      }
      String authority = rest.substring(0, end);
      authority = authority.substring(authority.lastIndexOf('@') + 1);
      String host = authority;
      String port = "";
      int portColon = authority.lastIndexOf(':');
      if (portColon >= 0 && !authority.endsWith("]")) {
        host = authority.substring(0, portColon);
        port = authority.substring(portColon);
      }
      return new Destination(url, scheme, host.toLowerCase(Locale.ROOT), port);
    }
  }
}
