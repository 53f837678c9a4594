#include <QTest>

class DuplicatePayoutsTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(DuplicatePayoutsTest)
#include "tst_duplicatepayouts.moc"
