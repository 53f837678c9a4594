#pragma once

#include <QStringList>

namespace verity {

// `verity reconcile [--db PATH] (--provider URL | --provider-export FILE) --from DATE --to DATE
// [--csv FILE] [--duplicates-csv FILE] [--pdf FILE] [--json] [--window SECONDS]`: reconciles the
// ledger against the provider for the period, writes the reports asked for and prints a
// summary. Reads the store, never writes it. Exits 0 when every row is matched, 1 when any is
// not, 2 when it could not run. Needs a QGuiApplication for --pdf (fonts).
int runReconcileCommand(const QStringList &arguments);

} // namespace verity
