package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import dev.periscope.api.host.ApprovalService;
import dev.periscope.api.host.CredentialService;
import dev.periscope.api.host.OriginPattern;
import dev.periscope.api.host.Secret;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Where a credential fill gets its secret and its permission. The host's credential service answers
 * first for the references it lists; the plugin's {@code credentials.refs} map other references to
 * environment variables. A credential bound to origins is refused on any other origin before
 * approval is asked; approval, when required, fails closed: no approval service, a refusal or a
 * failing service all deny.
 */
public final class CredentialChannel {
  public static final String TOOL = "browser_fill_credential";

  private final Optional<CredentialService> service;
  private final Map<String, String> environmentRefs;
  private final Function<String, String> environment;
  private final boolean requireApproval;
  private final Optional<ApprovalService> approval;
  private final boolean typedPasswords;

  /**
   * {@code typedPasswords}: a password the model supplies (one the user gave in their instruction)
   * may go into a password field, as a secret of the session from then on.
   */
  public CredentialChannel(
      Optional<CredentialService> service,
      Map<String, String> environmentRefs,
      Function<String, String> environment,
      boolean requireApproval,
      Optional<ApprovalService> approval,
      boolean typedPasswords) {
    this.service = service;
    this.environmentRefs = Map.copyOf(environmentRefs);
    this.environment = environment;
    this.requireApproval = requireApproval;
    this.approval = approval;
    this.typedPasswords = typedPasswords;
  }

  /** No credential source: fills fail {@code BROWSER_CREDENTIAL_UNAVAILABLE}. */
  public static CredentialChannel none() {
    return new CredentialChannel(
        Optional.empty(), Map.of(), name -> null, true, Optional.empty(), false);
  }

  /**
   * Whether browser_fill and browser_type may put a password the model supplies into a password
   * field ({@code credentials.modelTypedPasswords: allow}).
   */
  public boolean allowsTypedPasswords() {
    return typedPasswords;
  }

  /** Whether any credential is configured: the tool is offered only then. */
  public boolean available() {
    return !references().isEmpty();
  }

  /** Every configured reference, sorted. */
  public List<String> references() {
    TreeSet<String> all = new TreeSet<>(environmentRefs.keySet());
    service.ifPresent(s -> all.addAll(s.references()));
    return List.copyOf(all);
  }

  /**
   * A resolved credential: its reference, its secret, and the origins it may go to (none listed:
   * any).
   */
  record Credential(String ref, Secret secret, List<OriginPattern> origins) {
    boolean allows(String origin) {
      return origins.isEmpty() || origins.stream().anyMatch(p -> p.matches(origin));
    }

    String originList() {
      return origins.stream().map(OriginPattern::toString).collect(Collectors.joining(", "));
    }
  }

  /**
   * The credential a reference names, or {@code BROWSER_CREDENTIAL_UNAVAILABLE} naming the
   * configured ones.
   */
  Credential resolve(String ref) {
    if (service.isPresent() && service.get().references().contains(ref)) {
      Optional<Secret> secret = service.get().resolve(ref);
      if (secret.isEmpty() || secret.get().isEmpty()) {
        throw unavailable("credential \"" + ref + "\" has no value: its source is unset or empty");
      }
      return new Credential(ref, secret.get(), List.copyOf(service.get().origins(ref)));
    }
    String variable = environmentRefs.get(ref);
    if (variable == null) {
      List<String> configured = references();
      throw unavailable(
          "unknown credential reference \""
              + ref
              + "\"; "
              + (configured.isEmpty()
                  ? "none are configured"
                  : "configured: " + String.join(", ", configured)));
    }
    String value = environment.apply(variable);
    if (value == null || value.isEmpty()) {
      throw unavailable(
          "credential \""
              + ref
              + "\" has no value: environment variable "
              + variable
              + " is unset or empty");
    }
    return new Credential(ref, Secret.of(value), List.of());
  }

  /**
   * A credential fill, on the environment's queue: the secret is resolved, the origins of the
   * field's frame and of every frame around it checked against the credential's origins (before
   * anyone is asked), approval obtained, the secret handed to {@code filled} with its own origins
   * (so the session redacts it and guards its way out from then on) and only then to the provider,
   * which checks the origins once more as it fills. Its own origins are the credential's; for a
   * credential bound to none, the origin of the field's frame. Returns the number of characters
   * filled.
   */
  int fill(
      Field field,
      String ref,
      Cancellation cancellation,
      java.util.function.BiConsumer<Secret, List<OriginPattern>> filled) {
    Credential credential = resolve(ref);
    List<String> chain = field.originChain();
    checkOrigins(credential, chain, field.name());
    approve(credential, chain, field.name(), cancellation);
    filled.accept(
        credential.secret(),
        credential.origins().isEmpty() ? SecretEgress.origins(chain.get(0)) : credential.origins());
    return field.fill(credential.secret(), chain);
  }

  /**
   * The field a credential goes into, as the runtime reaches it: each of its calls is one step of
   * the browser, so the time a person takes to approve is not counted against the browser's
   * deadlines.
   */
  interface Field {
    /** The field's accessible name, for the approval request. */
    String name();

    /** {@link BrowserEnvironment#originChain}. */
    List<String> originChain();

    /** {@link BrowserEnvironment#fillCredential}. */
    int fill(Secret secret, List<String> expectedChain);
  }

  /**
   * Refuses a fill the credential's origins do not admit, before anyone is asked: the field's own
   * frame and every frame around it up to the top page must be on one of them, so neither a
   * look-alike page nor an allowed page framed by a stranger gets it. A credential bound to no
   * origins may go anywhere only with approval.
   */
  void checkOrigins(Credential credential, List<String> chain, String fieldName) {
    if (credential.origins().isEmpty()) {
      if (!requireApproval) {
        throw denied(
            "credential \""
                + credential.ref()
                + "\" is bound to no origins and approval is off, so it"
                + " goes nowhere; list its origins or turn approval on");
      }
      return;
    }
    String field = "the field \"" + printable(fieldName) + "\"";
    if (!credential.allows(chain.get(0))) {
      throw denied(
          "credential \""
              + credential.ref()
              + "\" may be filled only on "
              + credential.originList()
              + "; "
              + field
              + " is on "
              + chain.get(0));
    }
    for (String around : chain.subList(1, chain.size())) {
      if (!credential.allows(around)) {
        throw denied(
            "credential \""
                + credential.ref()
                + "\" may be filled only on "
                + credential.originList()
                + "; "
                + field
                + " is on "
                + chain.get(0)
                + " but framed by "
                + around);
      }
    }
  }

  /**
   * Asks for approval when it is required; anything but an allow-once answer is {@code
   * BROWSER_CREDENTIAL_DENIED}.
   */
  void approve(
      Credential credential, List<String> chain, String fieldName, Cancellation cancellation) {
    if (!requireApproval) {
      return;
    }
    if (approval.isEmpty()) {
      throw denied("credential fills need approval and this host has no approval service");
    }
    String origin = chain.get(0);
    String top = chain.get(chain.size() - 1);
    String field = printable(fieldName);
    String reason =
        "inject the stored credential \""
            + credential.ref()
            + "\" into a browser form field"
            + (top.equals(origin)
                ? ""
                : " (in a frame of " + origin + " inside a page of " + top + ")");
    ApprovalDecision decision;
    try {
      decision =
          approval
              .get()
              .decide(
                  new ApprovalRequest(TOOL, credential.ref(), origin, field, reason), cancellation);
    } catch (RuntimeException e) {
      throw denied(
          "the approval service failed ("
              + e.getClass().getSimpleName()
              + "), so the fill was denied");
    }
    if (decision != ApprovalDecision.ALLOW_ONCE) {
      throw denied(
          "filling credential \""
              + credential.ref()
              + "\" into \""
              + field
              + "\" on "
              + origin
              + " was not approved");
    }
  }

  /**
   * A page-chosen name as it may be shown to a person: without control and format characters (which
   * could move a terminal's cursor or reorder the line around it) and at most 120 characters.
   */
  static String printable(String name) {
    String clean = String.valueOf(name).replaceAll("[\\p{Cc}\\p{Cf}\\p{Co}\\p{Cn}]", "").strip();
    return clean.length() > 120 ? clean.substring(0, 120) + "…" : clean;
  }

  private static BrowserException unavailable(String message) {
    return new BrowserException(ErrorCode.BROWSER_CREDENTIAL_UNAVAILABLE, message);
  }

  private static BrowserException denied(String message) {
    return new BrowserException(ErrorCode.BROWSER_CREDENTIAL_DENIED, message);
  }
}
