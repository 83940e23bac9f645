package dev.periscope.browser.policy;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * One environment's proxy on an ephemeral 127.0.0.1 port: every connection its browser makes comes
 * here. It checks its credentials (else 407), judges the destination by the {@link
 * DestinationPolicy} (resolving the host once), answers 403 to a denied one before any upstream
 * connection, and connects only to an address it checked: CONNECT tunnels (HTTPS, WebSockets) dial
 * the checked address; forwarded HTTP is sent to the checked address as an IP literal with the
 * original Host header, so no later DNS answer can redirect it. Jetty does the HTTP and tunnelling;
 * the policy decides and dials. A request passes the {@link ProxyGate} (credentials, the bootstrap
 * host), then is a {@link ConnectTunnels} tunnel or an {@link HttpForward} forward; the proxy's own
 * refusals are {@link ProxyAnswers}.
 *
 * <p>{@link #close()} stops admission first, so a connection still resolving is never opened, then
 * stops the server, which closes every socket, tunnels included.
 */
public final class PolicyProxy implements AutoCloseable {
  /**
   * The host the proxy answers itself, so a browser learns its credentials before any page loads.
   */
  public static final String BOOTSTRAP_HOST = "periscope-proxy.invalid";

  /**
   * The header a denial carries, so the browser side can tell a policy denial from a site's own
   * 403.
   */
  public static final String DENIAL_HEADER = "X-Periscope-Policy";

  /**
   * The header the proxy's own transport failures carry (a name that does not resolve, a refused
   * dial, no answer in time): its value is the cause in words, so the browser side can tell the
   * proxy's 502 or 504 from a site's own.
   */
  public static final String TRANSPORT_HEADER = "X-Periscope-Transport";

  private static final AtomicInteger PROXIES = new AtomicInteger();

  /** A denied destination, in order. */
  public record Denial(long sequence, String host, int port, String reason) {}

  /** A destination the proxy could not reach, in order, with the cause in words. */
  public record Unreachable(long sequence, String host, int port, String cause) {}

  /** How long a dial may take, for a tunnel and for forwarded HTTP alike. */
  static final long CONNECT_TIMEOUT_MS = 15_000;

  /** The environment's policy; none while the proxy is a spare that no environment has taken. */
  private volatile DestinationPolicy policy;

  private final Resolver resolver;
  private final Upstream upstream;
  private final String address;
  private final Server server;
  private final ServerConnector connector;
  private final String username = "periscope";
  private final String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
  private final String expectedAuthorization;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Deque<Denial> denials = new ArrayDeque<>();
  private final Deque<Unreachable> unreachable = new ArrayDeque<>();
  private long eventCount;

  public PolicyProxy(DestinationPolicy policy, Resolver resolver, Upstream upstream) {
    this(policy, resolver, upstream, "127.0.0.1");
  }

  /**
   * A proxy listening on {@code address} of this machine rather than loopback: a browser on another
   * machine (a Grid's node) reaches it there. Its credentials are its own all the same.
   */
  public PolicyProxy(
      DestinationPolicy policy, Resolver resolver, Upstream upstream, String address) {
    this(policy, resolver, upstream, address, true);
  }

  /**
   * The judge of a proxy that listens nowhere: {@link #judgeNavigation} and the record of denials,
   * for a browser whose requests are judged in the browser itself (a Chromium the user runs, the
   * cdp provider's), with no server, thread or socket of its own.
   */
  public static PolicyProxy judgeOnly(DestinationPolicy policy, Resolver resolver) {
    return new PolicyProxy(
        policy,
        resolver,
        checked -> {
          throw new java.net.ConnectException("a judge-only policy proxy dials nothing");
        },
        "127.0.0.1",
        false);
  }

  private PolicyProxy(
      DestinationPolicy policy,
      Resolver resolver,
      Upstream upstream,
      String address,
      boolean listening) {
    this.address = address;
    this.policy = java.util.Objects.requireNonNull(policy, "policy");
    this.resolver = resolver;
    this.upstream = upstream;
    this.expectedAuthorization =
        "Basic "
            + Base64.getEncoder()
                .encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    if (!listening) {
      server = null;
      connector = null;
      return;
    }
    QueuedThreadPool threads = new QueuedThreadPool(32, 2);
    threads.setName("periscope-proxy-" + PROXIES.incrementAndGet());
    threads.setDaemon(true);
    server = new Server(threads);
    // The proxy forwards paths as the browser wrote them: an encoded % or / in a path is the site's
    // business.
    org.eclipse.jetty.server.HttpConfiguration http =
        new org.eclipse.jetty.server.HttpConfiguration();
    http.setUriCompliance(org.eclipse.jetty.http.UriCompliance.UNSAFE);
    http.setSendServerVersion(false);
    connector =
        new ServerConnector(server, 1, 1, new org.eclipse.jetty.server.HttpConnectionFactory(http));
    if (listensEverywhere(address)) {
      throw new IllegalArgumentException(
          "the policy proxy listens on one address, never every interface's (" + address + ")");
    }
    connector.setHost(address);
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(
        new ProxyGate(
            this,
            expectedAuthorization,
            new ConnectTunnels(this, upstream, new HttpForward(this, upstream))));
    server.setStopTimeout(0);
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception stopping) {
        e.addSuppressed(stopping);
      }
      throw new IllegalStateException("the policy proxy did not start: " + e.getMessage(), e);
    }
  }

  /**
   * Whether a configured address can name one address of this machine to listen on: a host name or
   * an IP literal, and not the wildcard in any spelling. Literals only are judged (a name is judged
   * when it is bound): reading settings does no DNS.
   */
  public static boolean oneAddress(String address) {
    return address.matches("[A-Za-z0-9.:-]{1,253}")
        && !(address.matches("[0-9.]+|.*:.*") && listensEverywhere(address));
  }

  /**
   * Whether {@code address} names the wildcard address in any spelling ({@code 0}, {@code 0.0},
   * {@code ::ffff:0.0.0.0}, a name that resolves to it): binding it would listen on every
   * interface. A name that does not resolve is for the bind to refuse.
   */
  public static boolean listensEverywhere(String address) {
    try {
      return InetAddress.getByName(address).isAnyLocalAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  public int port() {
    if (connector == null) {
      throw new IllegalStateException("this policy proxy judges only: it listens nowhere");
    }
    return connector.getLocalPort();
  }

  public String server() {
    return "http://" + (address.contains(":") ? "[" + address + "]" : address) + ":" + port();
  }

  public String username() {
    return username;
  }

  public String password() {
    return password;
  }

  /**
   * How many destinations were denied or unreachable so far: a mark for {@link #deniedSince} and
   * {@link #unreachableSince}.
   */
  public synchronized long denialMark() {
    return eventCount;
  }

  /** The denials after a mark, oldest first (the last 200 are kept). */
  public synchronized List<Denial> deniedSince(long mark) {
    return denials.stream().filter(d -> d.sequence() > mark).toList();
  }

  /** The destinations the proxy could not reach after a mark, oldest first (the last 200). */
  public synchronized List<Unreachable> unreachableSince(long mark) {
    return unreachable.stream().filter(u -> u.sequence() > mark).toList();
  }

  private synchronized void denied(String host, int port, String reason) {
    denials.addLast(new Denial(++eventCount, host, port, reason));
    while (denials.size() > 200) {
      denials.removeFirst();
    }
  }

  private synchronized void unreachable(String host, int port, String cause) {
    unreachable.addLast(new Unreachable(++eventCount, host, port, cause));
    while (unreachable.size() > 200) {
      unreachable.removeFirst();
    }
  }

  /**
   * Judges a navigation's destination before the browser is asked to go there, as this proxy would
   * judge its connection: a denial and a name that does not resolve are recorded as if the browser
   * had asked. The browser need not be troubled with a destination the proxy would refuse anyway;
   * an admitted one is judged again when the browser connects.
   *
   * @return the verdict; for an unresolved name, {@link #unresolvedCause()} says why in words
   */
  public DestinationPolicy.Verdict judgeNavigation(String host, int port) {
    DestinationPolicy.Verdict v = judge(host, port);
    if (v.outcome() == DestinationPolicy.Verdict.Outcome.UNRESOLVED) {
      unreachable(v.host(), port, unresolvedCause());
    }
    return v;
  }

  /** The cause in words of a name that does not resolve, as the proxy's answer states it. */
  public static String unresolvedCause() {
    return TransportCauses.oneLine(TransportCauses.UNRESOLVED);
  }

  /**
   * A proxy for a browser context made ahead of need: it refuses every destination until {@link
   * #assign} gives it the policy of the environment that takes the context.
   */
  public static PolicyProxy unassigned(Resolver resolver, Upstream upstream) {
    PolicyProxy proxy = new PolicyProxy(DestinationPolicy.strict(), resolver, upstream);
    proxy.policy = null;
    return proxy;
  }

  /** Gives an {@link #unassigned} proxy its environment's policy, once. */
  public void assign(DestinationPolicy assigned) {
    if (policy != null) {
      throw new IllegalStateException("this proxy already has its policy");
    }
    policy = java.util.Objects.requireNonNull(assigned, "policy");
  }

  /**
   * The egress guard's check of a name before it is resolved ({@code host}, {@code port}: whether
   * it carries a secret filled in the session, to somewhere else than the secret's own origins);
   * null until a secret is filled.
   */
  private volatile java.util.function.BiPredicate<String, Integer> carriesSecret;

  /**
   * From now on refuses, before resolving it, every name that {@code carriesSecret} says carries a
   * secret (a CONNECT's or a request's host): the browser's own checks do not see a preconnect.
   */
  public void refuseNamesCarrying(java.util.function.BiPredicate<String, Integer> carriesSecret) {
    this.carriesSecret = carriesSecret;
  }

  /** Judges a destination; records a denial. */
  DestinationPolicy.Verdict judge(String host, int port) {
    var secret = carriesSecret;
    if (secret != null && host != null && secret.test(host, port)) {
      // Neither the record nor the verdict names it: the name is the secret's carrier.
      String hidden = "(a name that carries a filled secret)";
      denied(hidden, port, "it carries a secret filled in this session");
      return new DestinationPolicy.Verdict(
          DestinationPolicy.Verdict.Outcome.DENIED,
          hidden,
          List.of(),
          "it carries a secret filled in this session");
    }
    DestinationPolicy rules = policy;
    DestinationPolicy.Verdict v =
        rules == null
            ? new DestinationPolicy.Verdict(
                DestinationPolicy.Verdict.Outcome.DENIED,
                DestinationPolicy.normalizeHost(String.valueOf(host)),
                List.of(),
                "this browser context is not yet any session's")
            : rules.judge(host, resolver);
    if (v.outcome() == DestinationPolicy.Verdict.Outcome.DENIED) {
      denied(v.host(), port, v.reason());
    }
    return v;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true) || server == null) {
      return;
    }
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException(
          "the policy proxy did not stop cleanly: " + e.getMessage(), e);
    }
  }

  public boolean closed() {
    return closed.get();
  }

  /**
   * The proxy could not reach the host: recorded, and answered 502 (504 when nothing answered in
   * time) with the cause in {@link #TRANSPORT_HEADER} and in the text.
   */
  void unreachable(Response response, Callback callback, String host, int port, String cause) {
    String words = TransportCauses.oneLine(cause);
    unreachable(host, port, words);
    ProxyAnswers.unreachable(response, callback, host, words);
  }
}
