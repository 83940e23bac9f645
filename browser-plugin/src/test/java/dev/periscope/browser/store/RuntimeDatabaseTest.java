package dev.periscope.browser.store;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.periscope.api.host.StorageDomain;
import dev.periscope.api.host.StorageDomainService;
import org.junit.jupiter.api.Test;

/**
 * The plugin fails closed on its own when a host hands it a domain of a newer schema without
 * refusing it (the reference host refuses first; see DurableCheckpointsTest).
 */
class RuntimeDatabaseTest {
  @Test
  void aDomainOfANewerSchemaIsClosedAgainAndRefusedNamingBothVersions() {
    StorageDomain newer = mock(StorageDomain.class);
    when(newer.schemaVersion()).thenReturn(99);
    StorageDomainService lenientHost = mock(StorageDomainService.class);
    when(lenientHost.open(eq(RuntimeDatabase.DOMAIN), anyList())).thenReturn(newer);

    var failure = assertThrows(IllegalStateException.class, () -> new RuntimeDatabase(lenientHost));

    assertTrue(
        failure
            .getMessage()
            .contains(
                "schema version 99, newer than this browser plugin understands ("
                    + RuntimeDatabase.VERSION
                    + ")"),
        failure.getMessage());
    verify(newer).close();
  }
}
