package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import dev.periscope.api.host.ApprovalService;
import dev.periscope.api.host.CredentialService;
import dev.periscope.api.host.OriginPattern;
import dev.periscope.api.host.Secret;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CredentialChannelTest {
  private final List<ApprovalRequest> asked = new ArrayList<>();

  private final CredentialService service =
      new CredentialService() {
        @Override
        public Set<String> references() {
          return Set.of("bank", "empty", "shared");
        }

        @Override
        public Optional<Secret> resolve(String reference) {
          return switch (reference) {
            case "bank" -> Optional.of(Secret.of("hunter2-bank"));
            case "shared" -> Optional.of(Secret.of("from-the-service"));
            case "empty" -> Optional.of(Secret.of(""));
            default -> Optional.empty();
          };
        }

        @Override
        public List<OriginPattern> origins(String reference) {
          return reference.equals("bank")
              ? List.of(OriginPattern.parse("https://bank.test"))
              : List.of();
        }
      };

  private CredentialChannel channel(boolean requireApproval, Optional<ApprovalService> approval) {
    return new CredentialChannel(
        Optional.of(service),
        Map.of("token", "TOKEN_VAR", "shared", "SHARED_VAR"),
        Map.of("TOKEN_VAR", "from-env", "SHARED_VAR", "env-loses")::get,
        requireApproval,
        approval,
        false);
  }

  private ApprovalService answering(ApprovalDecision decision) {
    return (request, cancellation) -> {
      asked.add(request);
      return decision;
    };
  }

  private static void assertCode(ErrorCode code, Runnable r) {
    assertEquals(code, assertThrows(BrowserException.class, r::run).code());
  }

  @Test
  void theHostServiceAnswersFirstThenTheEnvironmentMapping() {
    CredentialChannel c = channel(true, Optional.empty());
    assertEquals(List.of("bank", "empty", "shared", "token"), c.references());
    assertEquals("from-the-service".length(), c.resolve("shared").secret().length());
    assertEquals("from-env".length(), c.resolve("token").secret().length());
  }

  @Test
  void unknownEmptyAndUnsetReferencesAreUnavailableNamingTheConfiguredOnes() {
    CredentialChannel c = channel(true, Optional.empty());
    BrowserException unknown = assertThrows(BrowserException.class, () -> c.resolve("nope"));
    assertEquals(ErrorCode.BROWSER_CREDENTIAL_UNAVAILABLE, unknown.code());
    assertTrue(
        unknown.getMessage().contains("configured: bank, empty, shared, token"),
        unknown.getMessage());
    assertCode(ErrorCode.BROWSER_CREDENTIAL_UNAVAILABLE, () -> c.resolve("empty"));
    CredentialChannel unset =
        new CredentialChannel(
            Optional.empty(),
            Map.of("token", "TOKEN_VAR"),
            name -> "",
            true,
            Optional.empty(),
            false);
    assertCode(ErrorCode.BROWSER_CREDENTIAL_UNAVAILABLE, () -> unset.resolve("token"));
    assertTrue(CredentialChannel.none().references().isEmpty());
    assertTrue(!CredentialChannel.none().available());
  }

  @Test
  void aBoundCredentialIsRefusedOnEveryLookAlikeOrigin() {
    CredentialChannel c = channel(true, Optional.of(answering(ApprovalDecision.ALLOW_ONCE)));
    CredentialChannel.Credential bank = c.resolve("bank");
    c.checkOrigins(bank, List.of("https://bank.test"), "Password");
    c.checkOrigins(bank, List.of("https://bank.test", "https://bank.test"), "Password");
    for (String hostile :
        List.of(
            "https://bank.test.evil.test",
            "http://bank.test",
            "https://bank.test:8443",
            "https://login.bank.test",
            "https://evil.test",
            "null",
            "https://bank.test@evil.test")) {
      BrowserException e =
          assertThrows(
              BrowserException.class, () -> c.checkOrigins(bank, List.of(hostile), "Password"));
      assertEquals(ErrorCode.BROWSER_CREDENTIAL_DENIED, e.code(), hostile);
      assertTrue(
          e.getMessage().contains("may be filled only on https://bank.test"), e.getMessage());
      // The right field inside a stranger's page is refused too.
      BrowserException framed =
          assertThrows(
              BrowserException.class,
              () -> c.checkOrigins(bank, List.of("https://bank.test", hostile), "Password"));
      assertTrue(framed.getMessage().contains("framed by " + hostile), framed.getMessage());
    }
    assertTrue(asked.isEmpty(), "the origin check asks nobody");
  }

  @Test
  void aCredentialBoundToNoOriginsNeedsApproval() {
    channel(true, Optional.empty())
        .checkOrigins(
            channel(true, Optional.empty()).resolve("token"),
            List.of("https://anywhere.test"),
            "Token");
    CredentialChannel unattended = channel(false, Optional.empty());
    BrowserException e =
        assertThrows(
            BrowserException.class,
            () ->
                unattended.checkOrigins(
                    unattended.resolve("token"), List.of("https://anywhere.test"), "Token"));
    assertEquals(ErrorCode.BROWSER_CREDENTIAL_DENIED, e.code());
    assertTrue(e.getMessage().contains("bound to no origins and approval is off"), e.getMessage());
    unattended.checkOrigins(unattended.resolve("bank"), List.of("https://bank.test"), "Password");
  }

  @Test
  void aFieldNameIsShownWithoutControlOrFormatCharacters() {
    CredentialChannel c = channel(true, Optional.of(answering(ApprovalDecision.ALLOW_ONCE)));
    c.approve(
        c.resolve("bank"),
        List.of("https://bank.test"),
        "Pass\u001b[2K\rword\u202e\u0007",
        Cancellation.none());
    assertEquals("Pass[2Kword", asked.get(0).fieldName());
    assertEquals(121, CredentialChannel.printable("x".repeat(500)).length());
  }

  @Test
  void approvalFailsClosed() {
    CredentialChannel.Credential bank = channel(true, Optional.empty()).resolve("bank");
    assertCode(
        ErrorCode.BROWSER_CREDENTIAL_DENIED,
        () ->
            channel(true, Optional.empty())
                .approve(bank, List.of("https://bank.test"), "Password", Cancellation.none()));
    assertCode(
        ErrorCode.BROWSER_CREDENTIAL_DENIED,
        () ->
            channel(true, Optional.of(answering(ApprovalDecision.DENY)))
                .approve(bank, List.of("https://bank.test"), "Password", Cancellation.none()));
    assertCode(
        ErrorCode.BROWSER_CREDENTIAL_DENIED,
        () ->
            channel(
                    true,
                    Optional.of(
                        (request, cancellation) -> {
                          throw new IllegalStateException("prompt failed");
                        }))
                .approve(bank, List.of("https://bank.test"), "Password", Cancellation.none()));
  }

  @Test
  void theRequestNamesToolReferenceOriginAndField() {
    CredentialChannel c = channel(true, Optional.of(answering(ApprovalDecision.ALLOW_ONCE)));
    c.approve(c.resolve("bank"), List.of("https://bank.test"), "Password", Cancellation.none());
    assertEquals(1, asked.size());
    ApprovalRequest r = asked.get(0);
    assertEquals(
        List.of("browser_fill_credential", "bank", "https://bank.test", "Password"),
        List.of(r.toolName(), r.credentialRef(), r.origin(), r.fieldName()));
    assertTrue(!r.reason().contains("hunter2"));
  }

  @Test
  void withoutRequiredApprovalNobodyIsAsked() {
    CredentialChannel c = channel(false, Optional.of(answering(ApprovalDecision.DENY)));
    c.approve(c.resolve("bank"), List.of("https://bank.test"), "Password", Cancellation.none());
    assertTrue(asked.isEmpty());
  }
}
