package dev.periscope.browser.runtime;

import java.util.Map;

/**
 * What the credential channel is configured with: credential references backed by environment
 * variables ({@code credentials.refs}), whether every fill needs approval ({@code
 * credentials.requireApproval}) and whether a password the model supplies may go into a password
 * field ({@code credentials.modelTypedPasswords: allow}).
 */
public record CredentialSettings(
    Map<String, String> refs, boolean requireApproval, boolean modelTypedPasswords) {
  public CredentialSettings {
    refs = Map.copyOf(refs);
  }
}
