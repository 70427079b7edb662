MyType = "Job"
ClusterId = 1
ProcId = 0
Owner = "alice"
ProjectName = "Chemistry"
JobUniverse = 5
RequestCpus = 1
RequestMemory = 2048
RequestDisk = 1048576
Rank = TARGET.Memory
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer)

MyType = "Job"
ClusterId = 2
ProcId = 0
Owner = "bob"
ProjectName = "Physics"
JobUniverse = 5
RequestCpus = 1
RequestGPUs = 1
RequestMemory = 8192
RequestDisk = 4194304
Rank = 0.0
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.GPUs >= RequestGPUs) && (TARGET.HasFileTransfer)

MyType = "Job"
ClusterId = 3
ProcId = 0
Owner = "carol"
ProjectName = "Genomics"
JobUniverse = 5
RequestCpus = 4
RequestMemory = 4096000
RequestDisk = 1048576
Rank = 0.0
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer)
