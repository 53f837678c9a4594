#include <QTest>

class ReconciliationTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(ReconciliationTest)
#include "tst_reconciliation.moc"
