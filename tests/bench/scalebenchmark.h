#pragma once
// The scale benchmark: for each size, a dataset generated, imported through the importer and
// copied by bare INSERTs, opened in the window, and reconciled against the sandbox, each part
// in a child process of its own so that each peak memory figure is that part's alone. Prints
// one line per figure with its target, as text or JSON, and a table of growth across sizes.

#include <QList>
#include <QString>

namespace verity::bench {

struct ScaleOptions
{
    QList<qint64> tickets{10000, 100000, 1000000};
    quint32 seed = 1;
    qint64 refunds = 100000; // reconciled at each size (all the size has, when fewer)
    bool json = false;
    QString folder; // where the files go; empty: a temporary folder, removed afterwards
    bool keep = false; // keep each imported database (scale-N.sqlite in the folder) for profiling
    QString backend = QStringLiteral("sqlite"); // or "postgresql": a throwaway cluster of its own
};

// 0 when every target is met, 1 when one is missed, 2 when a part could not run.
int runScaleBenchmark(const ScaleOptions &options);

} // namespace verity::bench
