#include <QTest>

class ReconcileCommandTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(ReconcileCommandTest)
#include "tst_reconcilecommand.moc"
