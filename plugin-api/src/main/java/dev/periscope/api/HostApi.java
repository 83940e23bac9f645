package dev.periscope.api;

import dev.periscope.api.host.ApprovalService;
import dev.periscope.api.host.AttachmentService;
import dev.periscope.api.host.CredentialService;
import dev.periscope.api.host.StorageDomainService;
import java.util.Map;

/**
 * The host API version and the services a host can inject, by the names plugin.yaml uses in its
 * {@code inject} lists. A plugin declares the host API versions it works with in {@code requires}.
 */
public final class HostApi {
  /** The version of this contract. Minor versions add; a major version breaks. */
  public static final String VERSION = "2.14.0";

  /** Injectable host services by their plugin.yaml name. */
  public static final Map<String, Class<?>> SERVICES =
      Map.of(
          "approval", ApprovalService.class,
          "credentials", CredentialService.class,
          "storageDomain", StorageDomainService.class,
          "attachments", AttachmentService.class);

  private HostApi() {}
}
