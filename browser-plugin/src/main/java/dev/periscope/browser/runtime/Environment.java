package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserEnvironment;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserProvider;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.ProviderElement;
import dev.periscope.api.browser.ProviderObservation;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One open provider environment as the runtime holds it: its identity, its FIFO (a fair lock: operations run one
 * at a time in arrival order), and the refs of its newest observation. Only the newest observation is kept, so an
 * older one can never be acted on.
 */
final class Environment {
  final String id = "browser-" + UUID.randomUUID();
  final BrowserSessionId sessionId;
  final BrowserProvider provider;
  final int generation;
  private final BrowserEnvironment delegate;
  private final ReentrantLock fifo = new ReentrantLock(true);
  private volatile Refs latest;
  private int revision;
  private boolean closed;

  Environment(BrowserSessionId sessionId, BrowserProvider provider, BrowserEnvironment delegate, int generation) {
    this.sessionId = sessionId;
    this.provider = provider;
    this.delegate = delegate;
    this.generation = generation;
  }

  BrowserEnvironment delegate() {
    return delegate;
  }

  /** Runs one operation on this environment's queue. */
  <T> T queued(Supplier<T> operation) {
    fifo.lock();
    try {
      if (closed) {
        throw new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "the browser environment is closed", lastUrl(), false, null);
      }
      return operation.get();
    } finally {
      fifo.unlock();
    }
  }

  Refs latest() {
    return latest;
  }

  String lastUrl() {
    Refs r = latest;
    return r == null ? null : r.observation().url();
  }

  /** Turns a provider observation into the newest observation, minting refs in ranked order. Caller holds the queue. */
  Observation record(ProviderObservation p, boolean textTruncated, boolean elementsTruncated) {
    revision++;
    Map<String, ProviderElement> byRef = new LinkedHashMap<>();
    List<Observation.ObservedElement> elements = new ArrayList<>();
    int n = 0;
    for (ProviderElement e : p.elements()) {
      String ref = "e" + (++n);
      byRef.put(ref, e);
      elements.add(new Observation.ObservedElement(ref, e.kind(), e.role(), e.name(), e.disabled(), e.inputType(), e.tier()));
    }
    Observation o = new Observation("observation-" + UUID.randomUUID(), id, generation, "page-1", revision, p.url(),
        p.title(), p.text(), textTruncated, p.totalTextChars(), elements, elementsTruncated, p.totalElements(),
        digest(p));
    latest = new Refs(o, Map.copyOf(byRef));
    return o;
  }

  /** The provider element behind a ref of the newest observation, or {@code BROWSER_STALE_REFERENCE}. */
  ProviderElement resolve(String observationId, String ref) {
    Refs r = latest;
    if (r == null || !r.observation().id().equals(observationId)) {
      throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE,
          "observation \"" + observationId + "\" is stale; observe the page again", lastUrl(), false, null);
    }
    ProviderElement e = r.elementsByRef().get(ref);
    if (e == null) {
      throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE,
          "element \"" + ref + "\" is not in observation \"" + observationId + "\"; observe the page again",
          lastUrl(), false, null);
    }
    return e;
  }

  void close() {
    fifo.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      latest = null;
    } finally {
      fifo.unlock();
    }
    delegate.close();
  }

  private static String digest(ProviderObservation p) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (String part : new String[] {p.url(), p.title(), p.text()}) {
        d.update(String.valueOf(part).getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
      }
      for (ProviderElement e : p.elements()) {
        d.update(e.fingerprint().getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
      }
      return "sha256:" + HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
