#include <QTest>

class ProviderExportTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(ProviderExportTest)
#include "tst_providerexport.moc"
