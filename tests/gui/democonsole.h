#pragma once
// Shared by the GUI tests that talk to a provider: the demo data imported into a real SQLite
// file, and a sandbox provider on 127.0.0.1 holding the demo's side of it (seedDemo).

#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "resolution/providerconnection.h"
#include "sandbox/sandboxseed.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"

#include <QStandardPaths>

#include <memory>

namespace verity::test {

// Empty when both are ready; else what went wrong. The API key the console reads is the
// sandbox's, from the environment.
inline QString openDemoWithSandbox(const QString &databasePath, std::unique_ptr<Store> &store,
                                   std::unique_ptr<InProcessSandbox> &sandbox)
{
    QStandardPaths::setTestModeEnabled(true);
    qputenv(ProviderConnection::apiKeyVariable, "sk_test_sandbox");
    Expected<std::unique_ptr<Store>> opened = openStore(databasePath);
    if (!opened)
        return opened.message();
    store = std::move(*opened);
    TranscriptImporter importer(*store, ToolRegistry::builtIn());
    const ImportReport report = importer.importFile(demoDataResource());
    if (!report.clean())
        return report.summary();
    sandbox = std::make_unique<InProcessSandbox>();
    const Expected<SandboxSeedReport> seeded = seedDemo(sandbox->state());
    return seeded ? QString() : seeded.message();
}

} // namespace verity::test
